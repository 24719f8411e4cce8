// A migrated database of either kind for a describe block, for tests that call the API in process over a
// database of their own (to wrap it with faults, or to write rows past the API).
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll } from "vitest"
import { migrate, type Database } from "../src/index.ts"
import { openPglite } from "../src/store/PgliteDatabase.ts"
import { openPostgres } from "../src/store/PostgresDatabase.ts"
import type { backends } from "./Service.ts"
import { testPostgres, type TestPostgres } from "./TestPostgres.ts"

/** Opens and migrates a database of the backend before the block's tests (PGlite in a directory of its own) and
 * closes it, and its directory or PostgreSQL, after them. */
export const useMigratedDatabase = (backend: (typeof backends)[number], name: string): (() => Database) => {
  let db: Database | undefined
  let postgres: TestPostgres | undefined
  let dataDir: string | undefined
  beforeAll(async () => {
    postgres = backend === "postgres" ? await testPostgres() : undefined
    dataDir = backend === "pglite" ? await mkdtemp(join(tmpdir(), `dispatch-${name}-`)) : undefined
    db = postgres === undefined ? await openPglite(dataDir) : await openPostgres(postgres.url)
    await migrate(db)
  })
  afterAll(async () => {
    await db?.close()
    await postgres?.release()
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true })
  })
  return () => {
    if (db === undefined) throw new Error("the database did not open")
    return db
  }
}
