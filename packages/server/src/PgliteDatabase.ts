import { PGlite } from "@electric-sql/pglite"
import { existsSync } from "node:fs"
import { join } from "node:path"
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

// PostgreSQL's default 128 MB of shared buffers lives in PGlite's WebAssembly memory and, once touched, stays in the
// service's resident memory; the job service's working set is far smaller, and the data files are cached by the OS.
// 8 MB keeps an idle service on PGlite near 250 MB.
const postgresqlconf = "shared_buffers = 8MB\n"

// PGlite is one connection: its transactions already queue behind each other, so no pool is needed.
// Opening a data directory takes seconds (creating one, tens of seconds on a slow machine) before the service
// can print its URL; a line on stderr says what the silence is.
/** The stderr line while PGlite opens `dataDir`: creating it when it holds no database yet, else opening it. */
export const pgliteOpeningNote = (dataDir: string): string =>
  existsSync(join(dataDir, "PG_VERSION"))
    ? `dispatch: opening the embedded database (PGlite) in ${dataDir}\n`
    : `dispatch: creating the embedded database (PGlite) in ${dataDir}; the first start takes several seconds\n`

/** Opens embedded PostgreSQL (PGlite) in `dataDir`, or in memory when none is given; says on stderr that a data
 * directory is being opened or created. */
export const openPglite = async (dataDir?: string): Promise<Database> => {
  let db: PGlite
  if (dataDir !== undefined) process.stderr.write(pgliteOpeningNote(dataDir))
  try {
    db = await PGlite.create(dataDir === undefined ? { postgresqlconf } : { dataDir, postgresqlconf })
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
