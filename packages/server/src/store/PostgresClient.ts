import { Effect, Layer } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import type { SqlConnection, SqlError } from "effect/sql"
import pg from "pg"
import { postgresCompiler, readRows, sqlErrorOf, streamOf } from "./PostgresDialect.ts"

// PostgreSQL plans an unnamed statement at every execution, and the service's statements (a creation's catalog read
// and its INSERT with the names joined) cost more to plan than to run: each gets a name, so every connection plans
// it once and reuses the plan (node-postgres prepares a named statement on a connection at its first use). Only the
// first `namedStatementLimit` distinct texts are named: the service's own statements are a fixed few hundred at most,
// while searches and lists of ids make texts without end, which stay unnamed so no connection keeps them forever.
// The names belong to one client (its pool's connections), not to the process.
const namedStatementLimit = 512

/** The name a statement is prepared under, or undefined once the limit of named texts is reached. */
export type StatementNamer = (text: string) => string | undefined

/** A client's statement names, given in order of first use up to `limit` texts. */
export const statementNamer = (limit = namedStatementLimit): StatementNamer => {
  const names = new Map<string, string>()
  return (text) => {
    const known = names.get(text)
    if (known !== undefined || names.size >= limit) return known
    const name = `dispatch_${names.size + 1}`
    names.set(text, name)
    return name
  }
}

// "cached plan must not change result type": SQLSTATE 0A000 (feature not supported, shared with other refusals) raised
// by the server's plan cache, told by those two fields and never by its words, which the server's lc_messages translates.
const isStalePlan = (cause: unknown): boolean =>
  typeof cause === "object" && cause !== null && "code" in cause && cause.code === "0A000" && "routine" in cause && cause.routine === "RevalidateCachedQuery"

type Queryable = Pick<pg.Pool, "query">

// A statement sent by name, or unnamed past the limit of names.
const send = async (statementName: StatementNamer, target: Queryable, text: string, values: Array<unknown>, rowMode: "array" | undefined): Promise<pg.QueryResult> => {
  const name = statementName(text)
  if (name === undefined) return target.query({ text, values, ...(rowMode === undefined ? {} : { rowMode }) })
  try {
    return await target.query({ name, text, values, ...(rowMode === undefined ? {} : { rowMode }) })
  } catch (cause) {
    // A table whose columns changed since the statement was prepared (another process migrated the schema)
    // cannot run its plan: the statement is sent unnamed instead (outside a transaction; inside, the transaction
    // has already failed on it).
    if (!isStalePlan(cause)) throw cause
    return target.query({ text, values, ...(rowMode === undefined ? {} : { rowMode }) })
  }
}

const attempt = <A>(operation: string, run: () => Promise<A>): Effect.Effect<A, SqlError.SqlError> =>
  Effect.tryPromise({ try: run, catch: sqlErrorOf(operation) })

/** One connection as effect/sql sees it: the pool itself (each statement on whichever connection is free) or one
 * checked-out connection (a transaction's). */
const connectionOf = (statementName: StatementNamer, target: Queryable): SqlConnection.Connection => {
  const execute: SqlConnection.Connection["execute"] = (sql, params, transformRows) =>
    attempt("execute", () => send(statementName, target, sql, [...params], undefined)).pipe(Effect.map((result) => readRows(result.rows, transformRows)))
  return {
    execute,
    executeRaw: (sql, params) => attempt("execute", () => target.query({ text: sql, values: [...params] })),
    executeStream: streamOf(execute),
    executeValues: (sql, params) =>
      attempt("execute", () => send(statementName, target, sql, [...params], "array")).pipe(Effect.map((result) => result.rows as ReadonlyArray<ReadonlyArray<unknown>>)),
    executeValuesUnprepared: (sql, params) =>
      attempt("execute", () => target.query({ text: sql, values: [...params], rowMode: "array" })).pipe(Effect.map((result) => result.rows as ReadonlyArray<ReadonlyArray<unknown>>)),
    // Unnamed; without parameters node-postgres uses the simple protocol, which takes a script of several statements.
    executeUnprepared: (sql, params, transformRows) =>
      attempt("execute", () => (params.length === 0 ? target.query(sql) : target.query({ text: sql, values: [...params] }))).pipe(
        Effect.map((result) => readRows(Array.isArray(result) ? (result.at(-1)?.rows ?? []) : result.rows, transformRows))
      )
  }
}

/** effect/sql's client over a pool of `poolSize` connections to the PostgreSQL at `url`, checked by one round trip when
 * built; the pool ends when the layer's scope closes. */
export const postgresClientLayer = (url: string, poolSize = 20): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.effect(
    SqlClient.SqlClient,
    Effect.gen(function* () {
      const statementName = statementNamer()
      const pool = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const pool = new pg.Pool({ connectionString: url, max: poolSize })
          // An idle connection dropped by the server must not crash the process; the next query reconnects.
          pool.on("error", () => undefined)
          return pool
        }),
        (pool) => Effect.promise(() => pool.end())
      )
      yield* attempt("connect", () => pool.query("select 1"))
      // A checked-out connection has no listener of the pool's: the server ending it (an administrator, an idle-session
      // timeout, a failover) emits `error` on the client, which would be an uncaught exception. The error is kept and
      // the client released with it, so the pool destroys it instead of handing it out again.
      const transactionConnection = Effect.acquireRelease(
        attempt("connect", () => pool.connect()).pipe(
          Effect.map((client) => {
            const held = { client, ended: undefined as Error | undefined, onError: (error: Error) => void (held.ended = error) }
            client.on("error", held.onError)
            return held
          })
        ),
        (held) =>
          Effect.sync(() => {
            held.client.off("error", held.onError)
            held.client.release(held.ended)
          })
      ).pipe(Effect.map((held) => connectionOf(statementName, held.client)))
      return yield* SqlClient.make({
        acquirer: Effect.succeed(connectionOf(statementName, pool)),
        transactionAcquirer: transactionConnection,
        compiler: postgresCompiler,
        driver: "pg",
        spanAttributes: [["db.system.name", "postgresql"]]
      })
    })
  ).pipe(Layer.provide(Reactivity.layer))
