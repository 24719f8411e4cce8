// A service listens before its database is open: /healthz answers at once, /readyz names the step it is at, and
// every request that needs the database is a JSON 503 with Retry-After until it serves. The database's opening and
// its first query (the migrations' check) are held on Deferreds the test releases, so each window is certain.
import { Deferred, Effect, Layer, Result } from "effect"
import { describe, expect, test } from "vitest"
import { databaseError, type DatabaseLayer } from "../src/store/Database.ts"
import { migrations } from "../src/store/Migrations.ts"
import { pgliteLayer } from "../src/store/PgliteDatabase.ts"
import { serve, tappedDatabase, type ServeOptions } from "../src/index.ts"
import { tickingClock, tokenEntries, tokens } from "./Fixtures.ts"

const release = (gate: Deferred.Deferred<void>) => Effect.runSync(Deferred.succeed(gate, undefined))
const awaited = (gate: Deferred.Deferred<void>) => Effect.runPromise(Deferred.await(gate))

/** An in-memory PGlite whose opening waits for `opening`, whose queries wait for `querying`, and which says when it
 * is first queried (`queried`) and when it is closed (`closed`). */
const heldDatabase = () => {
  const [opening, querying, queried, closed] = [Deferred.makeUnsafe<void>(), Deferred.makeUnsafe<void>(), Deferred.makeUnsafe<void>(), Deferred.makeUnsafe<void>()]
  const layer: DatabaseLayer = Layer.effectContext(
    Effect.gen(function* () {
      yield* Deferred.await(opening)
      // Added before the database opens, so it runs after the database closed.
      yield* Effect.addFinalizer(() => Deferred.succeed(closed, undefined))
      const opened = yield* Layer.build(pgliteLayer())
      const held = tappedDatabase(opened, (_, __, send) => Effect.andThen(Effect.andThen(Deferred.succeed(queried, undefined), Deferred.await(querying)), send))
      return yield* Layer.build(held)
    })
  )
  return { layer, opening, querying, queried, closed }
}

const isDone = (gate: Deferred.Deferred<void>) => Effect.runSync(Deferred.isDone(gate))

// Starts the service; answers its URL once it listens, and the promise of its start.
const listening = (options: Pick<ServeOptions, "database" | "stop">) => {
  const url = Deferred.makeUnsafe<string>()
  const start = serve({ tokens: tokenEntries, clock: tickingClock(), ...options, onListening: (at) => void Effect.runSync(Deferred.succeed(url, at)) })
  return { url: Effect.runPromise(Deferred.await(url)), start }
}

const answer = async (url: string, init?: RequestInit) => {
  const response = await fetch(url, init)
  return { status: response.status, contentType: response.headers.get("content-type"), retryAfter: response.headers.get("retry-after"), body: (await response.json()) as any }
}

const authorized = { headers: { authorization: `Bearer ${tokens.alice}` } }

describe("a starting service", () => {
  test("answers /healthz at once, 503 with Retry-After to the API while its database opens and migrates, and serves after", async () => {
    const held = heldDatabase()
    const service = listening({ database: held.layer })
    const url = await service.url
    expect(await answer(`${url}/healthz`)).toMatchObject({ status: 200, body: { status: "ok" } })
    expect(await answer(`${url}/readyz`)).toMatchObject({
      status: 503,
      body: { ready: false, database: "opening", migrations: "not checked yet", dispatcher: "off", reasons: ["the database is opening"] }
    })
    const list = await answer(`${url}/api/v1/jobs`, authorized)
    expect(list).toMatchObject({ status: 503, contentType: "application/json", retryAfter: "1", body: { error: "ServiceStarting" } })
    expect(list.body.message).toContain("the database is opening")
    // A write with a body, an unauthenticated call and the metrics page get the same answer, not a reset nor a 500.
    const write = await answer(`${url}/api/v1/experiments`, { method: "POST", headers: { ...authorized.headers, "content-type": "application/json" }, body: JSON.stringify({ name: "e" }) })
    expect(write).toMatchObject({ status: 503, retryAfter: "1", body: { error: "ServiceStarting" } })
    expect(await answer(`${url}/api/v1/jobs`)).toMatchObject({ status: 503, body: { error: "ServiceStarting" } })
    expect(await answer(`${url}/metrics`)).toMatchObject({ status: 503, body: { error: "ServiceStarting" } })
    // What needs no database is served: the API's document, which tells every operation's client of this 503.
    const document = await answer(`${url}/api/v1/openapi.json`)
    expect(document.status).toBe(200)
    const operations = Object.values(document.body.paths as Record<string, Record<string, any>>).flatMap((item) => Object.values(item))
    expect(operations.length).toBeGreaterThan(40)
    for (const operation of operations) {
      expect(operation.responses["503"].content["application/json"].schema.required).toEqual(["error", "message", "detail"])
      expect(operation.responses["503"].headers["Retry-After"].schema.type).toBe("integer")
    }

    release(held.opening)
    await awaited(held.queried)
    expect(await answer(`${url}/readyz`)).toMatchObject({
      status: 503,
      body: { ready: false, database: "reachable", migrations: "being applied", reasons: ["the database's migrations are being checked and applied"] }
    })
    expect(await answer(`${url}/api/v1/jobs`, authorized)).toMatchObject({ status: 503, body: { error: "ServiceStarting", detail: [{ step: "migrations" }] } })

    release(held.querying)
    const started = await service.start
    if (Result.isFailure(started)) throw new Error(started.failure.message)
    try {
      expect(started.success.url).toBe(url)
      expect(await answer(`${url}/readyz`)).toEqual({
        status: 200,
        contentType: "application/json",
        retryAfter: null,
        body: { ready: true, database: "reachable", migrations: `all ${migrations.length} applied`, dispatcher: "off", reasons: [], queues: [] }
      })
      expect(await answer(`${url}/api/v1/jobs`, authorized)).toMatchObject({ status: 200 })
    } finally {
      await started.success.close()
    }
  })

  test("a database that fails to open ends the start with its error, and the service stops listening", async () => {
    const opening = Deferred.makeUnsafe<void>()
    const failing: DatabaseLayer = Layer.effectContext(
      Effect.andThen(Deferred.await(opening), Effect.fail(databaseError("open a database that will not open", new Error("disk on fire"))))
    )
    const service = listening({ database: failing })
    const url = await service.url
    expect(await answer(`${url}/api/v1/jobs`, authorized)).toMatchObject({ status: 503, retryAfter: "1" })
    release(opening)
    const started = await service.start
    expect(Result.isFailure(started) && started.failure).toMatchObject({ stage: "database", reasons: [expect.stringContaining("disk on fire")] })
    await expect(fetch(`${url}/healthz`)).rejects.toThrow()
  })

  // Waits for the event (the listener's close), however long a busy machine takes; the test's timeout bounds it.
  const connectionsRefused = async (url: string) => {
    for (;;) {
      if (await fetch(`${url}/healthz`).then(() => false, () => true)) return
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  // A service on a held database with a stop the test gives; `settled` says whether its start has resolved.
  const stoppable = async () => {
    const held = heldDatabase()
    const stop = Deferred.makeUnsafe<void>()
    const service = listening({ database: held.layer, stop: awaited(stop) })
    const state = { settled: false }
    void service.start.then(() => (state.settled = true))
    return { held, stop: () => release(stop), start: service.start, url: await service.url, state }
  }

  test("a stop asked while the database opens stops listening at once, lets the opening finish, runs no migration, and closes it", async () => {
    const { held, stop, start, url, state } = await stoppable()
    stop()
    await connectionsRefused(url)
    // The listener is gone while the opening is still held: the start waits for it rather than leaving it half done.
    expect(state.settled).toBe(false)
    release(held.opening)
    const started = await start
    expect(Result.isFailure(started) && started.failure).toMatchObject({ _tag: "ServeError", stage: "stopped", reasons: ["asked to stop while the database is opening"] })
    expect(isDone(held.queried)).toBe(false)
    expect(isDone(held.closed)).toBe(true)
  })

  test("a stop asked while the migrations run stops listening at once, lets them finish, and closes the database", async () => {
    const { held, stop, start, url, state } = await stoppable()
    release(held.opening)
    await awaited(held.queried)
    stop()
    await connectionsRefused(url)
    expect(state.settled).toBe(false)
    expect(isDone(held.closed)).toBe(false)
    release(held.querying)
    const started = await start
    expect(Result.isFailure(started) && started.failure).toMatchObject({ stage: "stopped", reasons: ["asked to stop while the database's migrations are being checked and applied"] })
    expect(isDone(held.closed)).toBe(true)
  })
})
