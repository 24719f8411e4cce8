import pg from "pg"
import { databaseError, databaseLayer, isoTimes, type Database, type Sql } from "./Database.ts"

type Queryable = Pick<pg.Pool, "query">

// PostgreSQL plans an unnamed statement at every execution, and the service's statements (a creation's catalog read
// and its INSERT with the names joined) cost more to plan than to run: each gets a name, so every connection plans
// it once and reuses the plan (node-postgres prepares a named statement on a connection at its first use). Only the
// first `namedStatementLimit` distinct texts are named: the service's own statements are a fixed few hundred at most,
// while searches and lists of ids make texts without end, which stay unnamed so no connection keeps them forever.
const namedStatementLimit = 512
const statementNames = new Map<string, string>()

/** The name a statement is prepared under, or undefined once the limit of named texts is reached. */
export const statementName = (text: string): string | undefined => {
  const known = statementNames.get(text)
  if (known !== undefined || statementNames.size >= namedStatementLimit) return known
  const name = `dispatch_${statementNames.size + 1}`
  statementNames.set(text, name)
  return name
}

// SQLSTATE 0A000, "cached plan must not change result type".
const isStalePlan = (cause: unknown): boolean =>
  typeof cause === "object" && cause !== null && "code" in cause && cause.code === "0A000" && String((cause as { message?: unknown }).message).includes("cached plan")

const sqlOf = (target: Queryable): Sql => ({
  query: async <R>(text: string, params: ReadonlyArray<unknown> = []) => {
    const values = [...params]
    try {
      const name = statementName(text)
      if (name === undefined) return (await target.query({ text, values })).rows.map(isoTimes) as ReadonlyArray<R>
      try {
        return (await target.query({ name, text, values })).rows.map(isoTimes) as ReadonlyArray<R>
      } catch (cause) {
        // A table whose columns changed since the statement was prepared (another process migrated the schema)
        // cannot run its plan: the statement is sent unnamed instead (outside a transaction; inside, the transaction
        // has already failed on it).
        if (!isStalePlan(cause)) throw cause
        return (await target.query({ text, values })).rows.map(isoTimes) as ReadonlyArray<R>
      }
    } catch (cause) {
      throw databaseError("query", cause)
    }
  },
  // Without parameters pg uses the simple protocol, which accepts several statements at once.
  exec: async (script) => {
    try {
      await target.query(script)
    } catch (cause) {
      throw databaseError("script", cause)
    }
  }
})

/** Connects to PostgreSQL at `url` through a pool of `poolSize` connections (checked by one round trip). */
export const openPostgres = async (url: string, poolSize = 20): Promise<Database> => {
  const pool = new pg.Pool({ connectionString: url, max: poolSize })
  // An idle connection dropped by the server must not crash the process; the next query reconnects.
  pool.on("error", () => undefined)
  try {
    await pool.query("select 1")
  } catch (cause) {
    await pool.end()
    throw databaseError("connect", cause)
  }
  const transaction = async <A>(body: (sql: Sql) => Promise<A>): Promise<A> => {
    let client: pg.PoolClient
    try {
      client = await pool.connect()
    } catch (cause) {
      throw databaseError("connect", cause)
    }
    try {
      await client.query("begin")
      const result = await body(sqlOf(client))
      await client.query("commit")
      return result
    } catch (cause) {
      await client.query("rollback").catch(() => undefined)
      throw cause
    } finally {
      client.release()
    }
  }
  return { kind: "postgres", ...sqlOf(pool), transaction, close: () => pool.end() }
}

/** The database service on the PostgreSQL at `url` (a pool of `poolSize`), closed when the layer's scope closes. */
export const postgresLayer = (url: string, poolSize?: number) => databaseLayer("PostgreSQL", () => openPostgres(url, poolSize))
