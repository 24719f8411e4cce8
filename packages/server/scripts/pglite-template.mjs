// Makes the pre-initialised PGlite data directory the job service ships (assets/pglite-datadir.tar.gz): PGlite's
// own initdb and the service's migrations, run once here instead of at every new data directory, dumped by PGlite itself. Run it after
// upgrading @electric-sql/pglite or changing the service's postgresql.conf (`node packages/server/scripts/pglite-template.mjs`
// after a build); the service ignores a template whose stamp names another PGlite or configuration.
import { PGlite } from "@electric-sql/pglite"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"
import { Effect } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import { migrate } from "../dist/store/Migrations.js"
import { pgliteClient } from "../dist/store/PgliteClient.js"
import { installedPgliteVersion, pgliteTemplate, postgresqlconf } from "../dist/store/PgliteDatabase.js"

const db = await PGlite.create({ postgresqlconf })
// The service's schema is in it, migrated (a new data directory then starts without running every migration in
// WebAssembly), and nothing else: no rows, no secret. Migrations added later run at start-up on top of it, as on any
// existing data directory, so a template older than the code still works.
const applied = await Effect.runPromise(
  Effect.flatMap(pgliteClient(db), (client) => Effect.provideService(migrate(), SqlClient.SqlClient, client)).pipe(Effect.provide(Reactivity.layer))
)
const dump = await db.dumpDataDir("gzip")
await db.close()
mkdirSync(dirname(pgliteTemplate.tarball), { recursive: true })
writeFileSync(pgliteTemplate.tarball, Buffer.from(await dump.arrayBuffer()))
writeFileSync(pgliteTemplate.stamp, `${JSON.stringify({ pglite: installedPgliteVersion(), postgresqlconf }, null, 2)}\n`)
console.log(`wrote ${pgliteTemplate.tarball} (${dump.size} bytes) for PGlite ${installedPgliteVersion()}, migrations ${applied.join(", ")}`)
