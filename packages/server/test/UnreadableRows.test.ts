// A stored row the service cannot render (written past the API, or by a version that accepted more) never breaks
// its list: the list answers 200 with an error item naming the row's id and URL, the service logs it, and the row
// can be deleted through the API.
import { Schema } from "effect"
import { describe, expect, test } from "vitest"
import { JobResponse, pageOf } from "../src/index.ts"
import { listItem } from "../src/wire/ListItem.ts"
import { jobBody, newJob, registerWorld, tokens } from "./Fixtures.ts"
import { inProcessCaller, inProcessEnvironment } from "./InProcessApi.ts"
import { backends } from "./Service.ts"
import { useMigratedDatabase } from "./TestDatabase.ts"

const deepJson = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`

describe.each(backends)("a stored row that cannot be rendered, on %s", (backend) => {
  const database = useMigratedDatabase(backend, "unreadable")
  const logged: Array<string> = []
  const alice = inProcessCaller(inProcessEnvironment(database, (line) => void logged.push(line)), tokens.alice)

  test("a job whose stored values nest past what can be written is an error item in every job list, logged, and can be deleted", async () => {
    const { world, job } = await newJob(alice, "unreadable")
    const healthy = await alice("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue))
    // Written past the API, as no request can: the values nest 5,000 deep.
    await database().query(`update jobs set parameter_values = $1::jsonb where id = $2`, [deepJson(5000), job.id])
    for (const path of ["/jobs", `/experiments/${world.experiment}/jobs`, "/jobs?pageLength=1"]) {
      const list = await alice("GET", path)
      expect(list.status, path).toBe(200)
      expect(list.body.data[0]).toEqual({ id: job.id, error: "UnreadableRow", message: expect.stringContaining(`job ${job.id}`), url: `http://test/api/v1/jobs/${job.id}` })
      // The typed client (and so the web page) reads the page, error item and all.
      expect(Schema.decodeUnknownSync(pageOf(listItem(JobResponse)))(list.body).data.length).toBe(path.includes("pageLength=1") ? 1 : 2)
    }
    expect((await alice("GET", "/jobs")).body.data[1]).toMatchObject({ id: healthy.body.id, status: "queued" })
    expect(logged.some((line) => line.includes(`job ${job.id} is stored in a form the service cannot render`))).toBe(true)
    // The job itself cannot be answered (a defect, 500 without internal text), but it can be deleted.
    const read = await alice("GET", `/jobs/${job.id}`)
    expect(read).toMatchObject({ status: 500, body: { error: "InternalError" } })
    expect(JSON.stringify(read.body)).not.toMatch(/call stack/i)
    expect((await alice("DELETE", `/jobs/${job.id}`)).status).toBe(200)
    expect((await alice("GET", "/jobs")).body.data.map((j: { id: number }) => j.id)).toEqual([healthy.body.id])
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
    const answer = await alice("GET", `/jobs/${job.id}`)
    const dispatch = (answer.body as { dispatch: Record<string, unknown> }).dispatch
    // jsonb orders an object's keys by length, then bytes: what the job's answer has always shown.
    expect(JSON.stringify(dispatch["trainJob"])).toBe(`{"uid":"u-1","name":"job-1","namespace":"team-a"}`)
    expect(JSON.stringify(dispatch["error"])).toBe(`{"ref":{"uid":"u-1","name":"job-1","namespace":"team-a"},"error":"ErrUnreachable","reasons":["down"]}`)
  })

  test("an entrypoint whose stored task graph cannot be written as YAML is an error item in the entrypoint list", async () => {
    const world = await registerWorld(alice, "unreadable-ep")
    const [snapshot] = await database().query<{ id: number }>(`select id from entrypoint_snapshots where entrypoint = $1`, [world.entrypoint])
    await database().query(`update entrypoint_snapshots set document = jsonb_set(document - 'taskGraphText', '{taskGraph}', $1::jsonb) where id = $2`, [deepJson(5000), snapshot?.id])
    const list = await alice("GET", "/entrypoints")
    expect(list.status).toBe(200)
    expect(list.body.data.find((e: { id: number }) => e.id === world.entrypoint)).toEqual({
      id: world.entrypoint,
      error: "UnreadableRow",
      message: expect.any(String),
      url: `http://test/api/v1/entrypoints/${world.entrypoint}`
    })
    expect((await alice("GET", "/experiments")).status).toBe(200)
    expect((await alice("DELETE", `/entrypoints/${world.entrypoint}`)).status).toBe(200)
  })
})
