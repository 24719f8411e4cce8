import pg from "pg"
import { databaseError, databaseLayer, isoTimes, type Database, type Sql } from "./Database.ts"

type Queryable = Pick<pg.Pool, "query">

const sqlOf = (target: Queryable): Sql => ({
  query: async <R>(text: string, params: ReadonlyArray<unknown> = []) => {
    try {
      return (await target.query(text, [...params])).rows.map(isoTimes) as ReadonlyArray<R>
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
