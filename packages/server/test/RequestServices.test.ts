// What a handler's transaction and store calls do with what they wrote: a transaction commits when its body
// succeeds or refuses and rolls back on a defect, and the repository's statements inside it join it. A failure of
// the database reaches the API layer as the database's own error, with its SQLSTATE, so it answers as it always has.
import { Cause, Effect, Exit } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { describe, expect, test } from "vitest"
import { stored, transaction } from "../src/http/RequestServices.ts"
import { DatabaseError } from "../src/index.ts"
import { resources } from "../src/store/Resources.ts"
import { refusal, ResourceNotFound } from "../src/wire/ServiceProblem.ts"
import { useMigratedDatabase, type TestDatabase } from "./TestDatabase.ts"

const creator = { name: "alice" }

describe("a handler's transaction on the request's database", () => {
  const database = useMigratedDatabase("pglite", "request-services")
  let named = 0

  const runOn = <A, E>(db: TestDatabase, effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Effect.runPromiseExit(Effect.provideService(effect, SqlClient.SqlClient, db.client))

  // An experiment inserted through the repository, then what `then` does; answers the name it was given.
  const insertThen = <A, E>(then: Effect.Effect<A, E, SqlClient.SqlClient>) => {
    const name = `experiment-${(named += 1)}`
    const body = Effect.flatMap(resources, (store) => stored(store.insertExperiment("team", creator, { name, description: "" }, "2026-12-01T00:00:00.000Z"))).pipe(Effect.andThen(then))
    return { name, effect: transaction(body) }
  }

  const storedNames = async (name: string) => (await database().query<{ name: string }>(`select name from experiments where name = $1`, [name])).map((r) => r.name)

  test("a body that succeeds commits what it wrote", async () => {
    const { name, effect } = insertThen(Effect.succeed("done"))
    const exit = await runOn(database(), effect)
    expect(exit).toEqual(Exit.succeed("done"))
    expect(await storedNames(name)).toEqual([name])
  })

  test("a body that refuses commits what it wrote before the refusal, and the refusal comes out as it was", async () => {
    const refused = refusal(new ResourceNotFound({ resource: "queue", id: "7" }))
    const { name, effect } = insertThen(Effect.fail(refused))
    const exit = await runOn(database(), effect)
    expect(exit).toEqual(Exit.fail(refused))
    expect(await storedNames(name)).toEqual([name])
  })

  test("a defect in the body rolls back what the repository wrote inside it, and comes out as the defect", async () => {
    const defect = new Error("the answer could not be made")
    const { name, effect } = insertThen(Effect.die(defect))
    const exit = await runOn(database(), effect)
    expect(Exit.isFailure(exit) && Cause.squash(exit.cause)).toBe(defect)
    expect(await storedNames(name)).toEqual([])
  })

  test("a statement the database refuses is a defect carrying the DatabaseError with its SQLSTATE, and rolls the transaction back", async () => {
    const { name, effect } = insertThen(
      Effect.flatMap(resources, (store) => stored(store.registerEntrypoints(0, [2_000_000_000])))
    )
    const exit = await runOn(database(), effect)
    const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
    expect(defect).toBeInstanceOf(DatabaseError)
    // The experiment 0 and the entrypoint named do not exist: a foreign key violation.
    expect((defect as DatabaseError).code).toBe("23503")
    expect(await storedNames(name)).toEqual([])
  })
})

describe("stored: a repository's failure as the answer's defect", () => {
  const run = (failure: unknown) => Effect.runSyncExit(stored(Effect.fail(failure)))
  const defectOf = (exit: Exit.Exit<unknown, unknown>) => (Exit.isFailure(exit) && Cause.hasDies(exit.cause) ? Cause.squash(exit.cause) : undefined)

  test("an SqlError around a DatabaseError dies with that DatabaseError, as the bridge threw it", () => {
    const cause = new DatabaseError({ operation: "query", reason: "duplicate key", code: "23505" })
    expect(defectOf(run(new SqlError.SqlError({ reason: new SqlError.UnknownError({ cause, operation: "execute" }) })))).toBe(cause)
  })

  test("an SqlError around a driver's error dies with a DatabaseError naming it", () => {
    const defect = defectOf(run(new SqlError.SqlError({ reason: new SqlError.UnknownError({ cause: new Error("connection lost"), operation: "execute" }) })))
    expect(defect).toBeInstanceOf(DatabaseError)
    expect((defect as DatabaseError).reason).toBe("connection lost")
  })

  test("anything else dies as it is", () => {
    const other = new Error("not the database's")
    expect(defectOf(run(other))).toBe(other)
  })
})
