// The service as a scoped Effect: it serves once the Effect succeeds, the scope's close stops it (listener and
// database), a bad option fails it before it listens, and its `stop` Effect asked while it starts ends the start with
// ServeError `stopped` after the step under way.
import { Deferred, Effect, Exit, Layer, Scope } from "effect"
import { describe, expect, test } from "vitest"
import type { DatabaseLayer } from "../src/store/Database.ts"
import { pgliteLayer } from "../src/store/PgliteDatabase.ts"
import { serveScoped } from "../src/index.ts"
import { tickingClock, tokenEntries, tokens } from "./Fixtures.ts"

const authorized = { headers: { authorization: `Bearer ${tokens.alice}` } }

/** An in-memory PGlite that says when it is closed. */
const watchedDatabase = (opening: Effect.Effect<void> = Effect.void) => {
  const closed = Deferred.makeUnsafe<void>()
  const layer: DatabaseLayer = Layer.effectContext(
    Effect.gen(function* () {
      yield* opening
      yield* Effect.addFinalizer(() => Deferred.succeed(closed, undefined))
      return yield* Layer.build(pgliteLayer())
    })
  )
  return { layer, closed: () => Effect.runSync(Deferred.isDone(closed)) }
}

describe("serveScoped", () => {
  test("serves once it succeeds, and the scope's close stops listening and closes the database", async () => {
    const database = watchedDatabase()
    const scope = Effect.runSync(Scope.make())
    const service = await Effect.runPromise(Scope.provide(serveScoped({ tokens: tokenEntries, clock: tickingClock(), database: database.layer }), scope))
    expect(service.database).toBe("pglite")
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200)
    expect((await fetch(`${service.url}/api/v1/jobs`, authorized)).status).toBe(200)
    expect(database.closed()).toBe(false)
    await Effect.runPromise(Scope.close(scope, Exit.void))
    expect(database.closed()).toBe(true)
    await expect(fetch(`${service.url}/healthz`)).rejects.toThrow()
  })

  test("a bad option fails it with every reason, before it listens", async () => {
    const listened: Array<string> = []
    const exit = await Effect.runPromiseExit(Effect.scoped(serveScoped({ tokens: [{ name: "x" }], defaultBackend: 7, onListening: (url) => void listened.push(url) })))
    expect(exit).toMatchObject({ _tag: "Failure" })
    const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
    expect(error).toMatchObject({ error: { _tag: "ServeError", stage: "options", reasons: [expect.stringContaining("tokens")] } })
    expect(listened).toEqual([])
    const backend = await Effect.runPromiseExit(Effect.scoped(serveScoped({ tokens: tokenEntries, defaultBackend: 7, onListening: (url) => void listened.push(url) })))
    const refused = Exit.isFailure(backend) ? backend.cause.reasons.find((r) => r._tag === "Fail") : undefined
    expect(refused).toMatchObject({ error: { _tag: "ServeError", stage: "options", reasons: [expect.stringContaining("defaultBackend")] } })
    expect(listened).toEqual([])
  })

  test("its stop, asked while the database opens, ends the start as stopped once the opening finished, and closes it", async () => {
    const opening = Deferred.makeUnsafe<void>()
    const database = watchedDatabase(Deferred.await(opening))
    const stop = Deferred.makeUnsafe<void>()
    const listening = Deferred.makeUnsafe<string>()
    const start = Effect.runPromiseExit(
      Effect.scoped(serveScoped({ tokens: tokenEntries, database: database.layer, stop: Deferred.await(stop), onListening: (url) => void Effect.runSync(Deferred.succeed(listening, url)) }))
    )
    const url = await Effect.runPromise(Deferred.await(listening))
    Effect.runSync(Deferred.succeed(stop, undefined))
    // The listener closes at once, while the opening is still held (waited for as an event; the test's timeout bounds it).
    while (await fetch(`${url}/healthz`).then(() => true, () => false)) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(database.closed()).toBe(false)
    Effect.runSync(Deferred.succeed(opening, undefined))
    const exit = await start
    const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
    expect(error).toMatchObject({ error: { _tag: "ServeError", stage: "stopped", reasons: ["asked to stop while the database is opening"] } })
    expect(database.closed()).toBe(true)
  })
})
