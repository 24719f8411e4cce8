// A database made before times were timestamptz keeps every time it stored, to the millisecond, and answers
// them as the same ISO-8601 strings; new writes read back as they were stamped.
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { Effect } from "effect"
import { migrations } from "../src/index.ts"
import { resources } from "../src/store/Resources.ts"
import { migrateTest as migrate, openEmptyPglite, openPostgres, type TestDatabase as Database } from "./TestDatabase.ts"
import { backends } from "./Service.ts"
import { testPostgres, type TestPostgres } from "./TestPostgres.ts"

describe.each(backends)("migrating stored times to timestamptz on %s", (backend) => {
  let db: Database | undefined
  let postgres: TestPostgres | undefined
  beforeAll(async () => {
    postgres = backend === "postgres" ? await testPostgres() : undefined
    // Not openPglite: its data directory comes migrated, and this test migrates a database of the old schema.
    db = postgres === undefined ? await openEmptyPglite() : await openPostgres(postgres.url)
  })
  afterAll(async () => {
    await db?.close()
    await postgres?.release()
  })

  test("a time stored as text before the migration reads back unchanged after it, and columns are timestamptz", async () => {
    if (db === undefined) throw new Error("no database")
    expect(await migrate(db, migrations.filter((m) => m.version <= 2))).toEqual([1, 2])
    const stamped = "2026-11-30T12:34:56.789Z"
    const [row] = await db.query<{ id: number }>(`insert into experiments (grp, name, description, created_on) values ('g', 'old', '', $1) returning id`, [stamped])
    expect(await migrate(db)).toEqual(migrations.filter((m) => m.version > 2).map((m) => m.version))
    expect((await db.run(Effect.flatMap(resources, (store) => store.readExperiment("g", row?.id ?? 0))))?.createdOn).toBe(stamped)
    // The group of every stored resource got an integer id, and the old experiment its last change time.
    expect(await db.query(`select name from groups`)).toEqual([{ name: "g" }])
    expect((await db.query<{ t: string }>(`select last_modified_on as t from experiments`))[0]?.t).toBe(stamped)
    const types = await db.query<{ data_type: string }>(
      `select distinct data_type from information_schema.columns where table_schema = current_schema() and column_name in ('created_on', 'last_modified_on', 'changed_on', 'logged_on', 'recorded_on', 'checked_on')`
    )
    expect(types.map((t) => t.data_type)).toEqual(["timestamp with time zone"])
    const later = "2026-12-01T00:00:00.001Z"
    const [fresh] = await db.query<{ created: string }>(
      `insert into experiments (grp, name, description, created_on, last_modified_on) values ('g', 'new', '', $1, $1) returning created_on as created`,
      [later]
    )
    expect(fresh?.created).toBe(later)
  })
})
