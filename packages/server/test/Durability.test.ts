import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import fc from "fast-check"
import { Result } from "effect"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { handleApiRequest } from "../src/http/ApiServer.ts"
import { DatabaseError, serve } from "../src/index.ts"
import { failWhen, migrateTest as migrate, openPglite, openPostgres, withTap, type TestDatabase as Database } from "./TestDatabase.ts"
import { openApi, routes } from "../src/Serve.ts"
import { client, inProcess, jobBody, registerWorld, started, tickingClock, tokenEntries, tokens } from "./Fixtures.ts"
import { backends, useService } from "./Service.ts"
import { testPostgres, type TestPostgres } from "./TestPostgres.ts"

describe.each(backends)("durability on %s", (backend) => {
  const service = useService(backend)

  test("200 job creations in parallel are each stored exactly once", async () => {
    const { alice } = service()
    const world = await registerWorld(alice, "parallel")
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => alice("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue, { description: `c-${i}` })))
    )
    expect(answers.filter((a) => a.status !== 200).map((a) => a.body)).toEqual([])
    const ids = answers.map((a) => a.body.id as number)
    expect(new Set(ids).size).toBe(200)
    const listed: Array<{ id: number; description: string }> = []
    for (let index = 0; index < 200; index += 100) {
      listed.push(...(await alice("GET", `/experiments/${world.experiment}/jobs?pageLength=100&index=${index}`)).body.data)
    }
    expect(listed.map((j) => j.id).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b))
    expect(new Set(listed.map((j) => j.description))).toEqual(new Set(Array.from({ length: 200 }, (_, i) => `c-${i}`)))
  })

  test("no request body, however malformed, gets a 500", async () => {
    const { alice } = service()
    const world = await registerWorld(alice, "fuzz")
    const field = fc.oneof(fc.jsonValue(), fc.constantFrom(world.entrypoint, world.queue, "1h", { training_method: "method_a" }))
    const body = fc.oneof(fc.jsonValue(), fc.dictionary(fc.constantFrom("entrypoint", "queue", "values", "swaps", "timeout", "artifactValues", "entrypointSnapshot", "description"), field))
    const targets = [`/experiments/${world.experiment}/jobs`, "/entrypoints", "/queues", "/experiments", `/jobs/1/metrics`, `/jobs/1/log`, `/jobs/1/mlflowRun`]
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom(...targets), async (json, path) => {
        const answer = await alice("POST", path, JSON.stringify(json))
        expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(500)
        if (answer.status !== 200) expect(answer.body).toEqual({ error: expect.any(String), message: expect.any(String), detail: expect.any(Array) })
      }),
      { numRuns: 60 }
    )
  })
})

/** A database that, once armed, fails the nth query matching `when`, as a write crashing part-way would. */
const faulty = async (db: Database, when: RegExp) => {
  let countdown = 0
  const wrapped = await withTap(
    db,
    failWhen((text) => (countdown > 0 && when.test(text) && --countdown === 0 ? new DatabaseError({ operation: "query", reason: "injected fault" }) : undefined))
  )
  return { db: wrapped, arm: (nth = 1) => (countdown = nth) }
}

describe.each(backends)("a write that fails part-way leaves nothing behind on %s", (backend) => {
  let db: Database | undefined
  let postgres: TestPostgres | undefined
  beforeAll(async () => {
    postgres = backend === "postgres" ? await testPostgres() : undefined
    db = postgres === undefined ? await openPglite() : await openPostgres(postgres.url)
    await migrate(db)
  })
  afterAll(async () => {
    await db?.close()
    await postgres?.release()
  })

  const count = async (table: string) => (await (db as Database).query<{ n: number }>(`select count(*)::int as n from ${table}`))[0]?.n

  test("job creation, status change and log posting each roll back whole", async () => {
    if (db === undefined) throw new Error("no database")
    expect(await migrate(db)).toEqual([])
    const fault = await faulty(db, /insert into job_status_history|insert into job_logs/)
    const env = { routes, openApi, tokens: tokenEntries, db: fault.db.client, now: () => new Date(tickingClock()()).toISOString(), baseUrl: "http://test" }
    const call = inProcess(async (method: string, url: string, body?: unknown) => {
      const answer = await handleApiRequest(env, { method, url: `/api/v1${url}`, authorization: `Bearer ${tokens.alice}`, body: body === undefined ? "" : JSON.stringify(body) })
      return { status: answer.status, body: answer.body as any }
    })
    const world = await registerWorld(call, "faults")
    const job = (await call("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue))).body
    const [jobs, history, logs] = [await count("jobs"), await count("job_status_history"), await count("job_logs")]

    fault.arm()
    const create = await call("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue))
    expect(create).toMatchObject({ status: 500, body: { error: "DatabaseError" } })
    expect([await count("jobs"), await count("job_status_history")]).toEqual([jobs, history])

    fault.arm()
    expect((await call("PUT", `/experiments/${world.experiment}/jobs/${job.id}/status`, { status: "started" })).status).toBe(500)
    expect((await call("GET", `/jobs/${job.id}/status`)).body).toMatchObject({ status: "queued", history: [{ status: "queued" }] })

    const three = { data: ["a", "b", "c"].map((message) => ({ severity: "INFO", loggerName: "x", message })) }
    fault.arm(3)
    expect((await call("POST", `/jobs/${job.id}/log`, three)).status).toBe(500)
    expect(await count("job_logs")).toBe(logs)
  })
})

// Each test starts services itself (PGlite compiles its WebAssembly on start: seconds on an idle machine).
describe("restart", { timeout: 300_000 }, () => {
  let postgres: TestPostgres | undefined
  let dataDir = ""
  beforeAll(async () => {
    postgres = await testPostgres()
    dataDir = await mkdtemp(join(tmpdir(), "dispatch-server-test-"))
  })
  afterAll(async () => {
    await postgres?.release()
    await rm(dataDir, { recursive: true, force: true })
  })

  const survives = async (options: { readonly dataDir: string } | { readonly databaseUrl: string }) => {
    const first = await started(options)
    const alice = client(first.url, tokens.alice)
    const world = await registerWorld(alice, "restart")
    const jobs = []
    for (let i = 0; i < 3; i++) jobs.push((await alice("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue, { description: `r${i}` }))).body)
    await alice("PUT", `/experiments/${world.experiment}/jobs/${jobs[0].id}/status`, { status: "started" })
    await alice("POST", `/jobs/${jobs[0].id}/log`, { data: [{ severity: "INFO", loggerName: "runner", message: "hello" }] })
    await alice("POST", `/jobs/${jobs[0].id}/metrics`, { name: "loss", value: "nan", step: 4 })
    await alice("POST", `/jobs/${jobs[1].id}/mlflowRun`, { mlflowRunId: "3f2504e0-4f89-11d3-9a0c-0305e82c3301" })
    const paths = [...jobs.flatMap((j) => [`/jobs/${j.id}`, `/jobs/${j.id}/status`, `/jobs/${j.id}/log`, `/jobs/${j.id}/metrics`, `/jobs/${j.id}/mlflowRun`]), `/experiments/${world.experiment}`, `/entrypoints/${world.entrypoint}`, `/queues/${world.queue}`]
    const before = await Promise.all(paths.map((p) => alice("GET", p)))
    await first.close()

    const second = await started(options)
    try {
      const again = client(second.url, tokens.alice)
      const after = await Promise.all(paths.map((p) => again("GET", p)))
      // Page links carry the address, which changes with the port; everything else must be identical.
      const withoutLinks = (a: { status: number; body: any }) => JSON.stringify(a).replaceAll(first.url, "").replaceAll(second.url, "")
      expect(after.map(withoutLinks)).toEqual(before.map(withoutLinks))
      expect(before.every((a) => a.status === 200)).toBe(true)
      const next = await again("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue))
      expect(next.body.id).toBeGreaterThan(Math.max(...jobs.map((j) => j.id)))
    } finally {
      await second.close()
    }
  }

  test("a PGlite service restarted on its data directory serves everything it stored", () => survives({ dataDir }))
  test("a PostgreSQL service restarted on its database serves everything it stored", async () => survives({ databaseUrl: postgres?.url ?? "" }))
})

describe("starting", { timeout: 300_000 }, () => {
  test("bad tokens, an unreachable database and a taken port are reported, not thrown", async () => {
    const badTokens = await serve({ tokens: [{ name: "x", group: "g", access: "write", tokenHash: "plain" }] })
    expect(Result.isFailure(badTokens) && badTokens.failure.stage).toBe("options")
    const noDatabase = await serve({ tokens: [], databaseUrl: "postgres://nobody@127.0.0.1:1/none" })
    expect(Result.isFailure(noDatabase) && noDatabase.failure.stage).toBe("database")
    const first = await started({})
    try {
      const port = Number(new URL(first.url).port)
      const taken = await serve({ tokens: [], port })
      expect(Result.isFailure(taken) && taken.failure.stage).toBe("listen")
    } finally {
      await first.close()
    }
  })
})
