// A creation commits exactly when it answers 2xx: a fault after its insert (the database failing, or the answer
// failing to be written) leaves nothing stored, on both databases.
import { describe, expect, test } from "vitest"
import { handleApiRequest, type ApiEnvironment } from "../src/http/ApiServer.ts"
import { Effect } from "effect"
import { DatabaseError } from "../src/index.ts"
import { openApi, routes } from "../src/Serve.ts"
import { inProcess, jobBody, registerWorld, tokenEntries, tokens } from "./Fixtures.ts"
import { backends } from "./Service.ts"
import { useMigratedDatabase, withTap, type TestDatabase } from "./TestDatabase.ts"

/** A database that runs every statement matching `after`, then fails: `lost` as a connection lost before the
 * answer, `unwritable` by handing back rows the answer cannot be written from (a value JSON has no form for). */
const failingAfter = (db: TestDatabase, after: RegExp, fault: "lost" | "unwritable" = "lost"): Promise<TestDatabase> =>
  withTap(db, (text, _, send) => {
    if (!after.test(text)) return send
    if (fault === "lost") return Effect.andThen(send, Effect.fail(new DatabaseError({ operation: "query", reason: "injected fault after the statement ran" })))
    return Effect.map(send, (rows) => (Array.isArray(rows) ? rows.map((row) => ({ ...row, description: 1n })) : rows) as typeof rows)
  })

describe.each(backends)("a creation's commit and its answer on %s", (backend) => {
  const database = useMigratedDatabase(backend, "commit")
  let clock = Date.UTC(2026, 10, 30, 12)
  const envOf = (db: TestDatabase, log?: (line: string) => void): ApiEnvironment => ({
    ...(log === undefined ? {} : { log }),
    routes,
    openApi,
    tokens: tokenEntries,
    db: db.client,
    now: () => new Date((clock += 1000)).toISOString(),
    baseUrl: "http://test"
  })
  const callOn = (db: () => TestDatabase | Promise<TestDatabase>, log?: (line: string) => void) => async (method: string, url: string, body?: unknown) => {
    const on = await db()
    const answer = await handleApiRequest(envOf(on, log), { method, url: `/api/v1${url}`, authorization: `Bearer ${tokens.alice}`, body: body === undefined ? "" : JSON.stringify(body) })
    if (on !== database()) await on.close()
    return { status: answer.status, body: answer.body as any }
  }
  const count = async (table: string) => (await database().query<{ n: number }>(`select count(*)::int as n from ${table}`))[0]?.n ?? 0

  test.each([
    ["the database fails after the insert", "lost", "DatabaseError"],
    ["the answer cannot be written from what the insert returned", "unwritable", "InternalError"]
  ] as const)("a job creation where %s answers 500 and stores nothing", async (_, fault, error) => {
    const alice = inProcess(callOn(database))
    const world = await registerWorld(alice, `fault-${fault}`)
    const [jobs, history] = [await count("jobs"), await count("job_status_history")]
    const logged: Array<string> = []
    const faulty = callOn(() => failingAfter(database(), /insert into jobs/, fault), (line) => logged.push(line))
    const answer = await faulty("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue))
    expect(answer.status).toBe(500)
    expect(answer.body).toMatchObject({ error })
    expect([await count("jobs"), await count("job_status_history")]).toEqual([jobs, history])
    // A defect is logged whole and answered without its internal text.
    if (fault === "unwritable") {
      expect(logged.join("\n")).toContain("BigInt")
      expect(JSON.stringify(answer.body)).not.toContain("BigInt")
    }
    const made = await alice("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue))
    expect(made.status).toBe(200)
    expect(await count("jobs")).toBe(jobs + 1)
  })

  test.each([
    ["an experiment", "experiments", /insert into experiments/, () => ({ name: `ex-fault-${clock}` })],
    ["a queue", "queues", /insert into queues/, () => ({ name: `q-fault-${clock}` })],
    ["an artifact", "artifacts", /insert into artifact_snapshots/, () => ({ artifactType: "model" })]
  ] as const)("%s whose insert ran and then failed answers 500 and stores nothing", async (_, table, after, body) => {
    const before = await count(table)
    const answer = await callOn(() => failingAfter(database(), after))("POST", `/${table}`, body())
    expect(answer.status).toBe(500)
    expect(await count(table)).toBe(before)
  })
})
