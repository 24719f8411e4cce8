import { Cause, Context, Effect, Exit, Layer, Scope } from "effect"
import { afterAll, describe, expect, test } from "vitest"
import { SqlClient, SqlError } from "effect/sql"
import { DatabaseKind } from "../src/store/Database.ts"
import { pgliteLayer } from "../src/store/PgliteDatabase.ts"
import { postgresLayer } from "../src/store/PostgresDatabase.ts"
import { backends } from "./Service.ts"
import { testPostgres, type TestPostgres } from "./TestPostgres.ts"

describe.each(backends)("the database service's %s layer", (backend) => {
  let postgres: TestPostgres | undefined
  afterAll(async () => {
    await postgres?.release()
  })

  test("opens its database when built, answers through effect/sql's client, and closes it with its scope", async () => {
    postgres = backend === "postgres" ? await testPostgres() : undefined
    const layer = postgres === undefined ? pgliteLayer() : postgresLayer(postgres.url, 2)
    const scope = Effect.runSync(Scope.make())
    const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
    const sql = Context.get(context, SqlClient.SqlClient)
    expect(Context.get(context, DatabaseKind)).toBe(backend)
    expect(await Effect.runPromise(sql.withTransaction(sql<{ n: number }>`select 1 + 1 as n`))).toEqual([{ n: 2 }])
    await Effect.runPromise(Scope.close(scope, Exit.void))
    const closed = await Effect.runPromiseExit(sql`select 1`)
    expect(Exit.isFailure(closed) && SqlError.isSqlError(Cause.squash(closed.cause))).toBe(true)
  })

  test("a database that cannot be opened fails the layer with a DatabaseError", async () => {
    const layer = backend === "postgres" ? postgresLayer("postgres://nobody@127.0.0.1:1/none") : pgliteLayer("/dev/null/not-a-directory")
    const exit = await Effect.runPromiseExit(Effect.scoped(Layer.build(layer)))
    expect(Exit.isFailure(exit)).toBe(true)
    expect(String(exit)).toContain("DatabaseError")
  })
})
