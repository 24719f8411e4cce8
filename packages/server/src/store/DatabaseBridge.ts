import { Cause, Context, Data, Effect, Exit, Schema } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, SqlError } from "effect/sql"
import type { SqlConnection } from "effect/sql"
import { databaseError, type Database, type Sql } from "./Database.ts"
import { postgresCompiler, streamOf } from "./PostgresDialect.ts"

// The one crossing between the service's Promise code (the HTTP handlers, the dispatcher's passes) and effect/sql:
// the `Database` interface those callers take, answered by the one SqlClient. It goes when the callers are Effects
// that take the repositories from context.

// What the body of a transaction threw, carried through effect/sql's transaction unchanged.
class BodyFailed extends Data.TaggedError("BodyFailed")<{ readonly cause: unknown }> {}

// An exit as a Promise's outcome: the value, the body's own error as it was thrown, or a DatabaseError.
const settle = <A>(operation: string, exit: Exit.Exit<A, unknown>): A => {
  if (Exit.isSuccess(exit)) return exit.value
  const failure = Cause.findErrorOption(exit.cause)
  if (failure._tag === "Some") {
    throw failure.value instanceof BodyFailed ? failure.value.cause : databaseError(operation, failure.value)
  }
  throw databaseError(operation, Cause.squash(exit.cause))
}

const sqlIn = (context: Context.Context<SqlClient.SqlClient>): Sql => {
  const client = Context.get(context, SqlClient.SqlClient)
  const runExit = Effect.runPromiseExitWith(context)
  return {
    query: async <R>(text: string, params: ReadonlyArray<unknown> = []) => settle("query", await runExit(client.unsafe<R & object>(text, params))) as ReadonlyArray<R>,
    exec: async (script) => void settle("script", await runExit(client.unsafe(script).unprepared))
  }
}

/** The `Database` interface over the SqlClient in `context`; `close` ends what the client runs on. */
export const databaseOver = (kind: Database["kind"], context: Context.Context<SqlClient.SqlClient>, close: () => Promise<void>): Database => {
  const client = Context.get(context, SqlClient.SqlClient)
  const runExit = Effect.runPromiseExitWith(context)
  return {
    kind,
    ...sqlIn(context),
    transaction: async <A>(body: (sql: Sql) => Promise<A>) =>
      settle(
        "transaction",
        await runExit(
          client.withTransaction(
            Effect.flatMap(Effect.context<SqlClient.SqlClient>(), (inside) =>
              Effect.tryPromise({ try: () => body(sqlIn(inside)), catch: (cause) => new BodyFailed({ cause }) })
            )
          )
        )
      ),
    close,
    run: async (effect) => {
      const exit = await runExit(effect)
      if (Exit.isSuccess(exit)) return exit.value
      throw Cause.squash(exit.cause)
    }
  }
}

// A repository's statements, run by a Promise caller on what it holds (the database or one of its open
// transactions): every statement goes through that `Sql`, so it joins the caller's transaction.
const connectionOver = (sql: Sql): SqlConnection.Connection => {
  const attempt = <A>(run: () => Promise<A>) => Effect.tryPromise({ try: run, catch: (cause) => new SqlError.SqlError({ reason: new SqlError.UnknownError({ cause, operation: "execute" }) }) })
  const execute: SqlConnection.Connection["execute"] = (text, params, transformRows) =>
    attempt(() => sql.query<object>(text, params)).pipe(Effect.map((rows) => (transformRows === undefined ? rows : transformRows(rows))))
  const values = (text: string, params: ReadonlyArray<unknown>) =>
    attempt(() => sql.query<Record<string, unknown>>(text, params)).pipe(Effect.map((rows) => rows.map((row) => Object.values(row))))
  return {
    execute,
    executeRaw: (text, params) => attempt(() => sql.query(text, params)),
    executeStream: streamOf(execute),
    executeValues: values,
    executeValuesUnprepared: values,
    executeUnprepared: (text, params, transformRows) =>
      params.length === 0 ? attempt(() => sql.exec(text)).pipe(Effect.as([])) : execute(text, params, transformRows)
  }
}

const clients = new WeakMap<Sql, SqlClient.SqlClient>()

/** An effect/sql client whose statements go through `sql` (the database, or one of its open transactions). */
export const clientOver = (sql: Sql): SqlClient.SqlClient => {
  const known = clients.get(sql)
  if (known !== undefined) return known
  const client = Effect.runSync(
    SqlClient.make({ acquirer: Effect.succeed(connectionOver(sql)), compiler: postgresCompiler, driver: "bridge", spanAttributes: [] }).pipe(Effect.provide(Reactivity.layer))
  )
  clients.set(sql, client)
  return client
}

/** Runs a repository's Effect on `sql` (the database, or a transaction the caller holds): resolves to its value,
 * or rejects with what the statement threw (a DatabaseError, keeping its SQLSTATE), or a DatabaseError for a row the
 * repository cannot read. The one crossing for repositories until their callers are Effects. */
export const runOn = async <A, E>(sql: Sql, effect: Effect.Effect<A, E, SqlClient.SqlClient>): Promise<A> => {
  const exit = await Effect.runPromiseExit(Effect.provideService(effect, SqlClient.SqlClient, clientOver(sql)))
  if (Exit.isSuccess(exit)) return exit.value
  const failure = Cause.findErrorOption(exit.cause)
  if (failure._tag === "Some") {
    const error = failure.value
    if (SqlError.isSqlError(error)) throw error.reason.cause
    throw Schema.isSchemaError(error) ? databaseError("read", error) : error
  }
  throw Cause.squash(exit.cause)
}

/** Runs `use` of a repository on `sql` (see `runOn`). */
export const onStore = <S, A, E>(sql: Sql, repository: Effect.Effect<S, never, SqlClient.SqlClient>, use: (repository: S) => Effect.Effect<A, E, SqlClient.SqlClient>): Promise<A> =>
  runOn(sql, Effect.flatMap(repository, use))
