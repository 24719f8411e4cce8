// Every statement a database is sent, shown first to a tap: what the bench replays is recorded this way, and the
// tests inject the database's failures this way (a statement refused, or every one once a process is dead).
import { Context, Effect, Layer } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import { SqlError } from "effect/sql"
import type { SqlConnection } from "effect/sql"
import { DatabaseKind, type Database } from "./Database.ts"
import { postgresCompiler, sqlErrorOf, streamOf } from "./PostgresDialect.ts"

/** Runs one statement (its text and parameters; a transaction's BEGIN, COMMIT and ROLLBACK too) on its connection:
 * `send` sends it; what the tap fails with is the statement's failure, as if the driver had thrown it. */
export type StatementTap = <A>(text: string, params: ReadonlyArray<unknown>, send: Effect.Effect<A, SqlError.SqlError>) => Effect.Effect<A, unknown>

const isSqlError = SqlError.isSqlError

const tapped = (connection: SqlConnection.Connection, tap: StatementTap): SqlConnection.Connection => {
  const guard = <A>(text: string, params: ReadonlyArray<unknown>, send: () => Effect.Effect<A, SqlError.SqlError>): Effect.Effect<A, SqlError.SqlError> =>
    Effect.mapError(
      Effect.suspend(() => tap(text, params, Effect.suspend(send))),
      (failure) => (isSqlError(failure) ? failure : sqlErrorOf("execute")(failure))
    )
  const execute: SqlConnection.Connection["execute"] = (text, params, transformRows) => guard(text, params, () => connection.execute(text, params, transformRows))
  return {
    execute,
    executeRaw: (text, params) => guard(text, params, () => connection.executeRaw(text, params)),
    executeStream: streamOf(execute),
    executeValues: (text, params) => guard(text, params, () => connection.executeValues(text, params)),
    executeValuesUnprepared: (text, params) => guard(text, params, () => connection.executeValuesUnprepared(text, params)),
    executeUnprepared: (text, params, transformRows) => guard(text, params, () => connection.executeUnprepared(text, params, transformRows))
  }
}

/** The database in `context` with `tap` run before every statement. Each statement, and each transaction, holds
 * one connection the database lends (`reserve`), so a transaction's statements stay on its connection. Closing it
 * leaves the database open. */
export const tappedDatabase = (context: Context.Context<Database>, tap: StatementTap): Layer.Layer<Database> => {
  const inner = Context.get(context, SqlClient.SqlClient)
  return Layer.merge(
    Layer.effect(
      SqlClient.SqlClient,
      SqlClient.make({
        acquirer: Effect.map(inner.reserve, (connection) => tapped(connection, tap)),
        compiler: postgresCompiler,
        driver: inner.driver,
        spanAttributes: []
      })
    ).pipe(Layer.provide(Reactivity.layer)),
    Layer.succeed(DatabaseKind, Context.get(context, DatabaseKind))
  )
}
