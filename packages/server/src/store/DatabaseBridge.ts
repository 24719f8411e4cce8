import { Cause, Context, Data, Effect, Exit } from "effect"
import { SqlClient } from "effect/sql"
import { databaseError, type Database, type Sql } from "../Database.ts"

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
