import { Context, Effect, Exit, Layer, Scope } from "effect"
import { afterAll, describe, expect, test } from "vitest"
import { DatabaseError, DatabaseService } from "../src/store/Database.ts"
import { pgliteLayer } from "../src/store/PgliteDatabase.ts"
import { postgresLayer } from "../src/store/PostgresDatabase.ts"
import { backends } from "./Service.ts"
import { testPostgres, type TestPostgres } from "./TestPostgres.ts"

describe.each(backends)("the database service's %s layer", (backend) => {
  let postgres: TestPostgres | undefined
  afterAll(async () => {
    await postgres?.release()
  })

  test("opens its database when built, answers through the one interface, and closes it with its scope", async () => {
    postgres = backend === "postgres" ? await testPostgres() : undefined
    const layer = postgres === undefined ? pgliteLayer() : postgresLayer(postgres.url, 2)
    const scope = Effect.runSync(Scope.make())
    const db = Context.get(await Effect.runPromise(Layer.buildWithScope(layer, scope)), DatabaseService)
    expect(db.kind).toBe(backend)
    expect(await db.transaction((sql) => sql.query<{ n: number }>(`select 1 + 1 as n`))).toEqual([{ n: 2 }])
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await expect(db.query(`select 1`)).rejects.toBeInstanceOf(DatabaseError)
  })

  test("a database that cannot be opened fails the layer with a DatabaseError", async () => {
    const layer = backend === "postgres" ? postgresLayer("postgres://nobody@127.0.0.1:1/none") : pgliteLayer("/dev/null/not-a-directory")
    const exit = await Effect.runPromiseExit(Effect.scoped(Layer.build(layer)))
    expect(Exit.isFailure(exit)).toBe(true)
    expect(String(exit)).toContain("DatabaseError")
  })
})
