// A job's row is decoded with its schema wherever it is read: a row that does not decode (written past the API) is an
// error item in a list and a defect (500, logged naming the field) when read alone, never a wrong answer; swaps kept in
// the REST list form read as the record they name.
import { Cause, Effect, Exit, Schema } from "effect"
import { describe, expect, test } from "vitest"
import { handleApiRequest, type ApiEnvironment } from "../src/http/ApiServer.ts"
import { openApi, routes } from "../src/Serve.ts"
import { StoredNumber } from "../src/store/DispatchRows.ts"
import { decodeRows, UnreadableRow } from "../src/store/UnreadableRow.ts"
import { inProcess, newJob, tokenEntries, tokens } from "./Fixtures.ts"
import { backends } from "./Service.ts"
import { useMigratedDatabase } from "./TestDatabase.ts"

describe("decoding stored rows", () => {
  test("a row that does not decode is an UnreadableRow defect naming the row, each field and the kind of value it held", async () => {
    const exit = await Effect.runPromiseExit(decodeRows(Schema.Struct({ id: Schema.Number, description: Schema.String }), "job 7")([{ id: 7, description: 1n }]))
    expect(Exit.isFailure(exit)).toBe(true)
    const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
    expect(defect).toBeInstanceOf(UnreadableRow)
    expect(String((defect as Error).message)).toMatch(/^job 7 is stored in a form the service cannot read: .*BigInt.*description/)
  })

  test("a missing value is named as null, and each row's problem by its place", async () => {
    const exit = await Effect.runPromiseExit(decodeRows(Schema.Struct({ description: Schema.String }), "job 8")([{ description: "fine" }, { description: null }]))
    const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
    expect(defect).toBeInstanceOf(UnreadableRow)
    expect((defect as UnreadableRow).problems).toEqual(['Expected string, got null (a null) at [1,"description"]'])
  })

  test("every problem of every row is named, a missing field as missing", async () => {
    const exit = await Effect.runPromiseExit(decodeRows(Schema.Struct({ a: Schema.String, b: Schema.Number }), "job 9")([{ b: "x" }]))
    const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
    expect(defect).toBeInstanceOf(UnreadableRow)
    expect((defect as UnreadableRow).problems).toEqual(['Missing key at [0,"a"]', 'Expected number, got "x" (a String) at [0,"b"]'])
    expect((defect as UnreadableRow).message).toBe('job 9 is stored in a form the service cannot read: Missing key at [0,"a"]; Expected number, got "x" (a String) at [0,"b"]')
  })

  test("rows that decode are answered as decoded, in order", async () => {
    const rows = await Effect.runPromise(decodeRows(Schema.Struct({ n: StoredNumber }), "a row")([{ n: 1 }, { n: "2.5" }]))
    expect(rows).toEqual([{ n: 1 }, { n: 2.5 }])
  })

  test("a stored number is a finite number or its text, nothing else", () => {
    const decode = Schema.decodeUnknownOption(StoredNumber)
    expect([decode(3), decode("3"), decode("-0.5")].map((o) => o._tag === "Some" && o.value)).toEqual([3, 3, -0.5])
    expect(decode("three")._tag).toBe("None")
    expect(decode(null)._tag).toBe("None")
    expect(decode(Number.NaN)._tag).toBe("None")
    expect(decode("Infinity")._tag).toBe("None")
  })
})

describe.each(backends)("a job row as stored, on %s", (backend) => {
  const database = useMigratedDatabase(backend, "jobrows")
  let clock = Date.UTC(2026, 11, 1, 12)
  const logged: Array<string> = []
  const env = (): ApiEnvironment => ({
    routes,
    openApi,
    tokens: tokenEntries,
    db: database(),
    now: () => new Date((clock += 1000)).toISOString(),
    baseUrl: "http://test",
    log: (line) => void logged.push(line)
  })
  const alice = inProcess(async (method: string, url: string, body?: unknown) => {
    const answer = await handleApiRequest(env(), { method, url: `/api/v1${url}`, authorization: `Bearer ${tokens.alice}`, body: body === undefined ? "" : JSON.stringify(body) })
    return { status: answer.status, body: answer.body as any }
  })

  test("a job whose status is none Dioptra knows is an error item in its list and a logged 500 when read, and is left as it was", async () => {
    const { world, job } = await newJob(alice, "bad-status")
    await database().query(`update jobs set status = 'exploded' where id = $1`, [job.id])
    const list = await alice("GET", `/experiments/${world.experiment}/jobs`)
    expect(list.status).toBe(200)
    expect(list.body.data).toEqual([{ id: job.id, error: "UnreadableRow", message: expect.stringContaining(`job ${job.id}`), url: `http://test/api/v1/jobs/${job.id}` }])
    expect(logged.some((line) => line.includes(`job ${job.id} is stored in a form the service cannot render`))).toBe(true)
    const read = await alice("GET", `/jobs/${job.id}`)
    expect(read).toMatchObject({ status: 500, body: { error: "InternalError" } })
    expect(JSON.stringify(read.body)).not.toContain("exploded")
    expect(logged.some((line) => line.includes(`job ${job.id} is stored in a form the service cannot read`) && line.includes(`got "exploded" at [0,"status"]`))).toBe(true)
    const [row] = await database().query<{ status: string }>(`select status from jobs where id = $1`, [job.id])
    expect(row?.status).toBe("exploded")
  })

  test("swaps kept in the REST list form read as the record they name", async () => {
    const { job } = await newJob(alice, "list-swaps")
    await database().query(`update jobs set swaps = $1::jsonb where id = $2`, [JSON.stringify([{ swap_name: "training_method", task_alias: "method_b" }]), job.id])
    const read = await alice("GET", `/jobs/${job.id}`)
    expect(read.status).toBe(200)
    expect(read.body.swaps).toEqual({ training_method: "method_b" })
  })

  test("a job's TrainJob and last error are answered with their keys in the order they were always answered in", async () => {
    const { job } = await newJob(alice, "key-order")
    const ref = { namespace: "team-a", name: "job-1", uid: "u-1" }
    await database().query(`update jobs set trainjob = $1::jsonb, last_error = $2::jsonb where id = $3`, [JSON.stringify(ref), JSON.stringify({ error: "ErrUnreachable", reasons: ["down"], ref }), job.id])
    const answer = await handleApiRequest(env(), { method: "GET", url: `/api/v1/jobs/${job.id}`, authorization: `Bearer ${tokens.alice}`, body: "" })
    const dispatch = (answer.body as { dispatch: Record<string, unknown> }).dispatch
    // jsonb orders an object's keys by length, then bytes: what the job's answer has always shown.
    expect(JSON.stringify(dispatch["trainJob"])).toBe(`{"uid":"u-1","name":"job-1","namespace":"team-a"}`)
    expect(JSON.stringify(dispatch["error"])).toBe(`{"ref":{"uid":"u-1","name":"job-1","namespace":"team-a"},"error":"ErrUnreachable","reasons":["down"]}`)
  })
})
