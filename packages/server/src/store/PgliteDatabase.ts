import { PGlite } from "@electric-sql/pglite"
import { existsSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Layer } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import { databaseError, DatabaseKind, type DatabaseLayer } from "./Database.ts"
import { pgliteClient } from "./PgliteClient.ts"

// PostgreSQL's default 128 MB of shared buffers lives in PGlite's WebAssembly memory and, once touched, stays in the
// service's resident memory; the job service's working set is far smaller, and the data files are cached by the OS.
// 8 MB keeps an idle service on PGlite near 250 MB.
/** The postgresql.conf every PGlite database of the service runs with. */
export const postgresqlconf = "shared_buffers = 8MB\n"

/** Where the pre-initialised data directory ships: a tarball PGlite made itself, and which PGlite made it. */
export const pgliteTemplate = {
  tarball: fileURLToPath(new URL("../../assets/pglite-datadir.tar.gz", import.meta.url)),
  stamp: fileURLToPath(new URL("../../assets/pglite-datadir.json", import.meta.url))
}

/** The version of the installed PGlite, which a template must have been made by. */
export const installedPgliteVersion = (): string => {
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite")
  const manifest = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")) as { readonly version: string }
  return manifest.version
}

// initdb in WebAssembly costs seconds of CPU (tens of seconds of wall time on a loaded machine); loading the data
// directory PGlite's own initdb made once, shipped beside the code, costs a fraction of it. A template made by
// another PGlite version, or with another configuration, is not used: initdb runs as before.
/** The shipped empty data directory as PGlite loads it, when it was made by the installed PGlite with this configuration. */
export const pgliteTemplateBlob = (template: { readonly tarball: string; readonly stamp: string } = pgliteTemplate): Blob | undefined => {
  try {
    const stamp = JSON.parse(readFileSync(template.stamp, "utf8")) as { readonly pglite?: string; readonly postgresqlconf?: string }
    if (stamp.pglite !== installedPgliteVersion() || stamp.postgresqlconf !== postgresqlconf) return undefined
    return new Blob([readFileSync(template.tarball)])
  } catch {
    return undefined
  }
}

// PGlite is one connection: its transactions already queue behind each other, so no pool is needed.
// Opening a data directory takes seconds (creating one, tens of seconds on a slow machine) before the service
// serves; a line on stderr says what the wait is.
/** The stderr line while PGlite opens `dataDir`: creating it when it holds no database yet, else opening it. */
export const pgliteOpeningNote = (dataDir: string): string =>
  existsSync(join(dataDir, "PG_VERSION"))
    ? `dispatch: opening the embedded database (PGlite) in ${dataDir}\n`
    : `dispatch: creating the embedded database (PGlite) in ${dataDir}; the first start takes several seconds\n`

/** The database on a PGlite `open` makes (`what` names it in errors): opened when the layer is built, closed with
 * its scope. */
export const pgliteLayerOver = (what: string, open: () => Promise<PGlite>): DatabaseLayer =>
  Layer.merge(
    Layer.effect(
      SqlClient.SqlClient,
      Effect.flatMap(
        Effect.acquireRelease(
          Effect.tryPromise({ try: open, catch: (cause) => databaseError(`open ${what}`, cause) }),
          (db) => Effect.promise(() => db.close())
        ),
        pgliteClient
      )
    ).pipe(Layer.provide(Reactivity.layer)),
    Layer.succeed(DatabaseKind, "pglite")
  )

/** Opens embedded PostgreSQL (PGlite) in `dataDir`, or in memory when none is given; a fresh one from the template. */
export const openPglite = async (dataDir?: string): Promise<PGlite> => {
  const fresh = dataDir === undefined || !existsSync(join(dataDir, "PG_VERSION"))
  const template = fresh ? pgliteTemplateBlob() : undefined
  return PGlite.create({ postgresqlconf, ...(dataDir === undefined ? {} : { dataDir }), ...(template === undefined ? {} : { loadDataDir: template }) })
}

/** The database on PGlite in `dataDir` (in memory when absent), closed when the layer's scope closes. */
export const pgliteLayer = (dataDir?: string): DatabaseLayer =>
  pgliteLayerOver(dataDir === undefined ? "in-memory PGlite" : dataDir, () => openPglite(dataDir))
