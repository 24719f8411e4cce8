import type { PGlite } from "@electric-sql/pglite"
import { Effect, Semaphore } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlConnection, SqlError } from "effect/sql"
import type { Reactivity } from "effect/reactivity"
import { postgresCompiler, readRows, sqlErrorOf, streamOf } from "./PostgresDialect.ts"

const attempt = <A>(operation: string, run: () => Promise<A>): Effect.Effect<A, SqlError.SqlError> =>
  Effect.tryPromise({ try: run, catch: sqlErrorOf(operation) })

const connectionOf = (db: PGlite): SqlConnection.Connection => {
  const execute: SqlConnection.Connection["execute"] = (sql, params, transformRows) =>
    attempt("execute", () => db.query(sql, [...params])).pipe(Effect.map((result) => readRows(result.rows, transformRows)))
  const values = (sql: string, params: ReadonlyArray<unknown>) =>
    attempt("execute", () => db.query<Array<unknown>>(sql, [...params], { rowMode: "array" })).pipe(Effect.map((result) => result.rows))
  return {
    execute,
    executeRaw: (sql, params) => attempt("execute", () => db.query(sql, [...params])),
    executeStream: streamOf(execute),
    executeValues: values,
    executeValuesUnprepared: values,
    // A script of several statements (a migration, a transaction's control) goes through PGlite's exec.
    executeUnprepared: (sql, params, transformRows) =>
      params.length === 0
        ? attempt("execute", () => db.exec(sql)).pipe(Effect.map((results) => readRows(results.at(-1)?.rows ?? [], transformRows)))
        : execute(sql, params, transformRows)
  }
}

// PGlite is one connection: a transaction must hold it whole, so statements from outside wait for the transaction's
// end (effect/sql's single-connection acquirers, which hold a permit of one for a statement or a transaction).
/** effect/sql's client over an open PGlite; closing the PGlite is its opener's business. */
export const pgliteClient = (db: PGlite): Effect.Effect<SqlClient.SqlClient, never, Reactivity.Reactivity> =>
  Effect.gen(function* () {
    const semaphore = yield* Semaphore.make(1)
    const acquirers = SqlClient.makeSqliteAcquirers({ connection: Effect.succeed(connectionOf(db)), semaphore })
    return yield* SqlClient.make({
      ...acquirers,
      compiler: postgresCompiler,
      driver: "pglite",
      spanAttributes: [["db.system.name", "postgresql"]]
    })
  })
