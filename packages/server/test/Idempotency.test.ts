// Idempotency-Key: a creation retried with its key is answered, not run again, even when the first answer
// was lost after the commit; a key reused for another request is 422; one still in progress is 409.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { test as propTest } from "@fast-check/vitest"
import fc from "fast-check"
import { Effect, Result } from "effect"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { handleApiRequest, type ApiEnvironment } from "../src/http/ApiServer.ts"
import { idempotencyWindowMs, parseIdempotencyKey } from "../src/http/IdempotencyKey.ts"
import { DatabaseError } from "../src/index.ts"
import { failWhen, migrateTest as migrate, openPglite, openPostgres, withTap, type TestDatabase as Database } from "./TestDatabase.ts"
import { openApi, routes } from "../src/Serve.ts"
import { inProcess, jobBody, registerWorld, tokenEntries, tokens } from "./Fixtures.ts"
import { backends, useService } from "./Service.ts"
import { testPostgres, type TestPostgres } from "./TestPostgres.ts"

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 255 })

propTest.prop([printable])("a key sent as a Structured Field string reads back exactly", (key) => {
  expect(parseIdempotencyKey(`"${key.replace(/(["\\])/g, "\\$1")}"`)).toEqual(Result.succeed(key))
})

propTest.prop([printable.filter((k) => !k.includes(" ") && !k.startsWith('"'))])("a key sent as a bare token reads back exactly", (key) => {
  expect(parseIdempotencyKey(key)).toEqual(Result.succeed(key))
})

test.each(['""', "", "a b", '"unterminated', '"bad \\n escape"', "x".repeat(256), "caf\u00e9"])("header %j is refused", (header) => {
  expect(Result.isFailure(parseIdempotencyKey(header))).toBe(true)
})

/** A database whose queries matching `when` wait until `release` is called, as a slow creation would. */
const gated = async (db: Database, when: RegExp) => {
  let open: () => void = () => undefined
  let reached: () => void = () => undefined
  const gate = new Promise<void>((resolve) => (open = resolve))
  const waiting = new Promise<void>((resolve) => (reached = resolve))
  const wrapped = await withTap(db, (text, _, send) =>
    when.test(text)
      ? Effect.andThen(
          Effect.promise(() => {
            reached()
            return gate
          }),
          send
        )
      : send
  )
  return { db: wrapped, waiting, release: () => open() }
}

/** A database that fails every query matching `when`, as a crash before the commit would. */
const failing = (db: Database, when: RegExp): Promise<Database> =>
  withTap(db, failWhen((text) => (when.test(text) ? new DatabaseError({ operation: "query", reason: "injected fault" }) : undefined)))

describe.each(backends)("Idempotency-Key on %s", (backend) => {
  let db: Database | undefined
  let postgres: TestPostgres | undefined
  let dataDir: string | undefined
  let clock = Date.UTC(2026, 10, 30, 12)
  const open = () => (postgres === undefined ? openPglite(dataDir) : openPostgres(postgres.url))
  beforeAll(async () => {
    postgres = backend === "postgres" ? await testPostgres() : undefined
    dataDir = backend === "pglite" ? await mkdtemp(join(tmpdir(), "dispatch-idempotency-")) : undefined
    db = await open()
    await migrate(db)
  })
  afterAll(async () => {
    await db?.close()
    await postgres?.release()
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true })
  })

  const envOf = (database: Database): ApiEnvironment => ({
    routes,
    openApi,
    tokens: tokenEntries,
    db: database.client,
    now: () => new Date((clock += 1000)).toISOString(),
    baseUrl: "http://test"
  })
  const caller =
    (env: () => ApiEnvironment, token: string = tokens.alice) =>
    async (method: string, url: string, body?: unknown, key?: string) => {
      const answer = await handleApiRequest(env(), {
        method,
        url: `/api/v1${url}`,
        authorization: `Bearer ${token}`,
        body: body === undefined ? "" : JSON.stringify(body),
        ...(key === undefined ? {} : { idempotencyKey: key })
      })
      return { status: answer.status, body: answer.body as any }
    }
  const current = () => envOf(db as Database)
  const alice = inProcess(caller(current))
  const jobCount = async (database: Database) => (await database.query<{ n: number }>(`select count(*)::int as n from jobs`))[0]?.n ?? 0

  test("in-process requests are each answered from their own environment, by one handler made once", async () => {
    const warnings: Array<string> = []
    const onWarning = (warning: Error) => warnings.push(warning.name)
    process.on("warning", onWarning)
    try {
      const locked = (): ApiEnvironment => ({ ...current(), tokens: [] })
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? caller(current) : caller(locked))("GET", "/experiments"))
      )
      expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? 200 : 401)))
      await new Promise((resolve) => setImmediate(resolve))
      expect(warnings).not.toContain("MaxListenersExceededWarning")
    } finally {
      process.off("warning", onWarning)
    }
  })

  test("a retry with the same key and body gets the first answer and creates nothing more; another body is 422", async () => {
    const world = await registerWorld(alice, "retry")
    const path = `/experiments/${world.experiment}/jobs`
    const before = await jobCount(db as Database)
    const first = await alice("POST", path, jobBody(world.entrypoint, world.queue), '"create-1"')
    expect(first.status).toBe(200)
    const again = await alice("POST", path, jobBody(world.entrypoint, world.queue), '"create-1"')
    expect(again).toEqual(first)
    expect(await jobCount(db as Database)).toBe(before + 1)
    const other = await alice("POST", path, jobBody(world.entrypoint, world.queue, { description: "another" }), '"create-1"')
    expect(other.status).toBe(422)
    expect(other.body.error).toBe("IdempotencyKeyReused")
    const elsewhere = await alice("POST", "/queues", { name: "q", backend: {} }, '"create-1"')
    expect(elsewhere.status).toBe(400)
    expect(await jobCount(db as Database)).toBe(before + 1)
  })

  test("keys belong to their caller: another group's same key creates its own", async () => {
    const bob = caller(current, tokens.bob)
    const a = await alice("POST", "/experiments", { name: "keyed-a" }, "shared-key")
    const b = await bob("POST", "/experiments", { name: "keyed-a" }, "shared-key")
    expect([a.status, b.status]).toEqual([200, 200])
    expect(b.body.id).not.toBe(a.body.id)
    expect(b.body.group.name).toBe("speech")
  })

  test("the answer lost after the commit (the process killed before replying) is given to the retry by a new process", async () => {
    const world = await registerWorld(alice, "lost")
    const path = `/experiments/${world.experiment}/jobs`
    const before = await jobCount(db as Database)
    // The first process commits and never answers: its answer is dropped, and its database handle closed.
    const lost = await alice("POST", path, jobBody(world.entrypoint, world.queue), "lost-answer")
    await db?.close()
    db = await open()
    const retried = await alice("POST", path, jobBody(world.entrypoint, world.queue), "lost-answer")
    expect(retried).toEqual(lost)
    expect(await jobCount(db)).toBe(before + 1)
    expect((await alice("GET", `/jobs/${retried.body.id}`)).body.id).toBe(lost.body.id)
  })

  test("a crash before the commit leaves neither the job nor the key, so the retry creates exactly one", async () => {
    const world = await registerWorld(alice, "crash")
    const path = `/experiments/${world.experiment}/jobs`
    const before = await jobCount(db as Database)
    const crashing = await failing(db as Database, /insert into idempotency_keys/)
    const crashed = await caller(() => envOf(crashing))("POST", path, jobBody(world.entrypoint, world.queue), "crash-key")
    expect(crashed.status).toBe(500)
    expect(await jobCount(db as Database)).toBe(before)
    const retried = await alice("POST", path, jobBody(world.entrypoint, world.queue), "crash-key")
    expect(retried.status).toBe(200)
    expect(await alice("POST", path, jobBody(world.entrypoint, world.queue), "crash-key")).toEqual(retried)
    expect(await jobCount(db as Database)).toBe(before + 1)
  })

  test("a request whose key is still in progress is 409, and is answered once the first is done", async () => {
    const world = await registerWorld(alice, "busy")
    const path = `/experiments/${world.experiment}/jobs`
    const slow = await gated(db as Database, /insert into jobs/)
    const slowEnv = envOf(slow.db)
    const first = caller(() => slowEnv)("POST", path, jobBody(world.entrypoint, world.queue), "busy-key")
    await slow.waiting
    const during = await caller(() => slowEnv)("POST", path, jobBody(world.entrypoint, world.queue), "busy-key")
    expect(during.status).toBe(409)
    expect(during.body.error).toBe("IdempotencyKeyInUse")
    slow.release()
    const done = await first
    expect(done.status).toBe(200)
    expect(await alice("POST", path, jobBody(world.entrypoint, world.queue), "busy-key")).toEqual(done)
  })

  test("a key is remembered for 24 hours, then forgotten", async () => {
    const first = await alice("POST", "/artifacts", { artifactType: "model" }, "day-key")
    expect(await alice("POST", "/artifacts", { artifactType: "model" }, "day-key")).toEqual(first)
    clock += idempotencyWindowMs
    const later = await alice("POST", "/artifacts", { artifactType: "model" }, "day-key")
    expect(later.status).toBe(200)
    expect(later.body.id).not.toBe(first.body.id)
  })

  test("a malformed key is a 400 and nothing is created", async () => {
    const answer = await alice("POST", "/experiments", { name: "bad-key" }, "two words")
    expect(answer.status).toBe(400)
    expect(answer.body.error).toBe("InvalidIdempotencyKey")
    expect((await alice("GET", "/experiments")).body.data.map((e: { name: string }) => e.name)).not.toContain("bad-key")
  })

  if (backend === "postgres") {
    test("a second process sending the key while the first holds it gets 409 (the key's lock is in the database)", async () => {
      const world = await registerWorld(alice, "two-process")
      const path = `/experiments/${world.experiment}/jobs`
      const slow = await gated(db as Database, /insert into jobs/)
      const first = caller(() => envOf(slow.db))("POST", path, jobBody(world.entrypoint, world.queue), "shared-across")
      await slow.waiting
      const otherProcess = await openPostgres(postgres?.url ?? "")
      try {
        const during = await caller(() => envOf(otherProcess))("POST", path, jobBody(world.entrypoint, world.queue), "shared-across")
        expect(during.status).toBe(409)
      } finally {
        slow.release()
        await otherProcess.close()
      }
      expect((await first).status).toBe(200)
    })
  }
})

describe("Idempotency-Key over HTTP", () => {
  const service = useService("pglite")
  test("the header is read from the request: a retry gets the same job", async () => {
    const { server, alice } = service()
    const world = await registerWorld(alice, "http")
    const post = () =>
      fetch(`${server.url}/api/v1/experiments/${world.experiment}/jobs`, {
        method: "POST",
        headers: { authorization: `Bearer ${tokens.alice}`, "content-type": "application/json", "idempotency-key": '"8e03978e-40d5-43e8-bc93-6894a57f9324"' },
        body: JSON.stringify(jobBody(world.entrypoint, world.queue))
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { id: number } }))
    const first = await post()
    expect(first.status).toBe(200)
    expect(await post()).toEqual(first)
    expect((await alice("GET", `/experiments/${world.experiment}/jobs`)).body.totalNumResults).toBe(1)
  })
})
