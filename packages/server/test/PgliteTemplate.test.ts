import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { existsSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, test } from "vitest"
import { migrations, migrationsTable } from "../src/store/Migrations.ts"
import { migrateTest as migrate, openPglite } from "./TestDatabase.ts"
import { installedPgliteVersion, pgliteTemplate, pgliteTemplateBlob, postgresqlconf } from "../src/store/PgliteDatabase.ts"

describe("the pre-initialised PGlite data directory", () => {
  test("ships for the installed PGlite and the service's configuration (else rerun scripts/pglite-template.mjs)", () => {
    expect(existsSync(pgliteTemplate.tarball)).toBe(true)
    expect(pgliteTemplateBlob()).toBeInstanceOf(Blob)
  })

  test("a template stamped by another PGlite or another configuration is not used", async () => {
    const dir = await mkdtemp(join(tmpdir(), "dispatch-template-"))
    try {
      const stamp = join(dir, "stamp.json")
      const other = { tarball: pgliteTemplate.tarball, stamp }
      await writeFile(stamp, JSON.stringify({ pglite: "0.0.1", postgresqlconf }))
      expect(pgliteTemplateBlob(other)).toBeUndefined()
      await writeFile(stamp, JSON.stringify({ pglite: installedPgliteVersion(), postgresqlconf: "shared_buffers = 128MB\n" }))
      expect(pgliteTemplateBlob(other)).toBeUndefined()
      await writeFile(stamp, JSON.stringify({ pglite: installedPgliteVersion(), postgresqlconf }))
      expect(pgliteTemplateBlob(other)).toBeInstanceOf(Blob)
      expect(pgliteTemplateBlob({ tarball: join(dir, "absent.tar.gz"), stamp })).toBeUndefined()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  test("a new data directory made from it holds the service's schema, every migration applied, and no rows of a service (else rerun scripts/pglite-template.mjs)", async () => {
    const db = await openPglite()
    try {
      const versions = await db.query<{ version: number }>(`select migration_id as version from ${migrationsTable} order by migration_id`)
      expect(versions.map((v) => v.version)).toEqual(migrations.map((m) => m.version))
      expect(await db.query(`select name from service_keys`)).toEqual([])
      expect(await db.query(`select name from groups`)).toEqual([])
    } finally {
      await db.close()
    }
  })

  test("a new data directory made from it migrates, keeps what is written, and reopens", async () => {
    const dir = await mkdtemp(join(tmpdir(), "dispatch-template-"))
    const dataDir = join(dir, "data")
    try {
      const db = await openPglite(dataDir)
      expect(await migrate(db)).toEqual([])
      await db.query(`insert into experiments (grp, name, description, created_on, last_modified_on) values ('g', 'kept', '', now(), now())`)
      const [settings] = await db.query<{ shared_buffers: string }>(`show shared_buffers`)
      expect(settings?.shared_buffers).toBe("8MB")
      await db.close()
      const again = await openPglite(dataDir)
      expect(await migrate(again)).toEqual([])
      expect(await again.query(`select name from experiments`)).toEqual([{ name: "kept" }])
      await again.close()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
