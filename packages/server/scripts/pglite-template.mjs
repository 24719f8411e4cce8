// Makes the pre-initialised PGlite data directory the job service ships (assets/pglite-datadir.tar.gz): PGlite's
// own initdb, run once here instead of at every new data directory, dumped by PGlite itself. Run it after
// upgrading @electric-sql/pglite or changing the service's postgresql.conf (`node packages/server/scripts/pglite-template.mjs`
// after a build); the service ignores a template whose stamp names another PGlite or configuration.
import { PGlite } from "@electric-sql/pglite"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"
import { installedPgliteVersion, pgliteTemplate, postgresqlconf } from "../dist/PgliteDatabase.js"

const db = await PGlite.create({ postgresqlconf })
// Nothing of the service's own is in it: migrations run at start-up, so the template never goes stale with them.
const dump = await db.dumpDataDir("gzip")
await db.close()
mkdirSync(dirname(pgliteTemplate.tarball), { recursive: true })
writeFileSync(pgliteTemplate.tarball, Buffer.from(await dump.arrayBuffer()))
writeFileSync(pgliteTemplate.stamp, `${JSON.stringify({ pglite: installedPgliteVersion(), postgresqlconf }, null, 2)}\n`)
console.log(`wrote ${pgliteTemplate.tarball} (${dump.size} bytes) for PGlite ${installedPgliteVersion()}`)
