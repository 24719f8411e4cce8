// The PostgreSQL client layer as the service meets it when the server ends a connection a transaction holds (an
// administrator's pg_terminate_backend, an idle-session timeout, a failover): the transaction fails, the process goes
// on (node-postgres emits the connection's `error` on a client that is checked out, which would be an
// uncaught exception without a listener), and the next statement runs on a fresh connection.
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { SqlClient } from "effect/sql"
import pg from "pg"
import { afterAll, beforeAll, expect, test } from "vitest"
import { postgresClientLayer } from "../src/store/PostgresClient.ts"
import { testPostgres, type TestPostgres } from "./TestPostgres.ts"

let database: TestPostgres
beforeAll(async () => {
  database = await testPostgres()
}, 120_000)
afterAll(() => database.release(), 60_000)

// Ends the backend with `pid` from a connection of its own, and waits until the server no longer lists it.
const terminate = async (url: string, pid: number) => {
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  try {
    await admin.query("select pg_terminate_backend($1)", [pid])
    while ((await admin.query("select 1 from pg_stat_activity where pid = $1", [pid])).rowCount !== 0) await new Promise((resolve) => setTimeout(resolve, 20))
  } finally {
    await admin.end()
  }
}

test("a transaction whose connection the server ends fails, nothing is thrown uncaught, and the client goes on", async () => {
  const uncaught: Array<unknown> = []
  const record = (error: unknown) => void uncaught.push(error)
  process.on("uncaughtException", record)
  const scope = await Effect.runPromise(Scope.make())
  try {
    const context = await Effect.runPromise(Layer.buildWithScope(postgresClientLayer(database.url, 2), scope))
    const sql = Context.get(context, SqlClient.SqlClient)
    const ended = await Effect.runPromiseExit(
      sql.withTransaction(
        Effect.gen(function* () {
          const [row] = yield* sql<{ pid: number }>`select pg_backend_pid() as pid`
          yield* Effect.promise(() => terminate(database.url, row!.pid))
          // The socket's close reaches node-postgres as an `error` event on the checked-out client.
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
          return yield* sql`select 1`
        })
      )
    )
    // Its statement fails, and so does the ROLLBACK effect/sql sends after it (a defect of the transaction): either
    // way it ends failed, and the server rolled it back when it ended the connection.
    expect(Exit.isFailure(ended)).toBe(true)
    const [after] = await Effect.runPromise(sql<{ one: number }>`select 1 as one`)
    expect(after).toEqual({ one: 1 })
    expect(uncaught).toEqual([])
  } finally {
    process.off("uncaughtException", record)
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}, 60_000)

test("a named statement whose table another process changed runs again unnamed, and the error that said so is told by its SQLSTATE and routine", async () => {
  const scope = await Effect.runPromise(Scope.make())
  const admin = new pg.Client({ connectionString: database.url })
  await admin.connect()
  try {
    await admin.query("create table plan_changes (a int)")
    await admin.query("insert into plan_changes values (1)")
    // One connection: the statement is prepared on it by name, and the second read uses that plan.
    const context = await Effect.runPromise(Layer.buildWithScope(postgresClientLayer(database.url, 1), scope))
    const sql = Context.get(context, SqlClient.SqlClient)
    const read = sql`select * from plan_changes`
    expect(await Effect.runPromise(read)).toEqual([{ a: 1 }])
    expect(await Effect.runPromise(read)).toEqual([{ a: 1 }])
    await admin.query("alter table plan_changes add column b int default 2")
    expect(await Effect.runPromise(read)).toEqual([{ a: 1, b: 2 }])
    // What PostgreSQL answers the stale plan with, as the client recognises it: by fields, not by its words, which
    // the server's lc_messages translates.
    const stale = await admin.query({ name: "stale", text: "select * from plan_changes" }).then(async () => {
      await admin.query("alter table plan_changes add column c int")
      return admin.query({ name: "stale", text: "select * from plan_changes" }).then(
        () => undefined,
        (error: unknown) => error
      )
    })
    expect(stale).toMatchObject({ code: "0A000", routine: "RevalidateCachedQuery" })
  } finally {
    await admin.end()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}, 60_000)
