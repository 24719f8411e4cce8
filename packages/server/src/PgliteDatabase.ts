import { PGlite } from "@electric-sql/pglite"
import { databaseError, isoTimes, type Database, type Sql } from "./Database.ts"

type Queryable = Pick<PGlite, "query" | "exec">

const sqlOf = (target: Queryable): Sql => ({
  query: async <R>(text: string, params: ReadonlyArray<unknown> = []) => {
    try {
      return (await target.query<R>(text, [...params])).rows.map(isoTimes)
    } catch (cause) {
      throw databaseError("query", cause)
    }
  },
  exec: async (script) => {
    try {
      await target.exec(script)
    } catch (cause) {
      throw databaseError("script", cause)
    }
  }
})

// PGlite is one connection: its transactions already queue behind each other, so no pool is needed.
/** Opens embedded PostgreSQL (PGlite) in `dataDir`, or in memory when none is given. */
export const openPglite = async (dataDir?: string): Promise<Database> => {
  let db: PGlite
  try {
    db = await PGlite.create(dataDir === undefined ? {} : { dataDir })
  } catch (cause) {
    throw databaseError(`open ${dataDir ?? "in-memory PGlite"}`, cause)
  }
  return {
    kind: "pglite",
    ...sqlOf(db),
    transaction: (body) => db.transaction((tx) => body(sqlOf(tx))),
    close: () => db.close()
  }
}
