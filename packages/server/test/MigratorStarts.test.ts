// Migrations run through effect/sql's Migrator: each once, in order, recorded, even when two services start together
// on one database; and a database migrated by the service's earlier runner (its record in `schema_migrations`) is
// adopted, not migrated again.
import { afterAll, describe, expect, test } from "vitest"
import { migrations, migrationsTable } from "../src/store/Migrations.ts"
import { migrateTest as migrate, openEmptyPglite as emptyPglite, openPostgres, type TestDatabase as Database } from "./TestDatabase.ts"
import { backends } from "./Service.ts"
import { testPostgres, type TestPostgres } from "./TestPostgres.ts"

const versions = migrations.map((m) => m.version)

// Not openPglite (emptyPglite): its data directory comes migrated from the shipped template.

/** The versions the Migrator recorded, in order, each as often as it was recorded. */
const recorded = async (db: Database) =>
  (await db.query<{ migration_id: number }>(`select migration_id from ${migrationsTable} order by migration_id`)).map((row) => Number(row.migration_id))

// The service's earlier runner, as it was: each migration in its own transaction, recorded in schema_migrations.
const migrateAsBefore = async (db: Database, upTo: number) => {
  await db.query(`create table if not exists schema_migrations (version integer primary key, name text not null)`)
  for (const step of migrations.filter((m) => m.version <= upTo)) {
    await db.transaction(async (sql) => {
      await sql.exec(step.sql)
      await sql.query(`insert into schema_migrations (version, name) values ($1, $2)`, [step.version, step.name])
    })
  }
}

describe.each(backends)("migrations through effect/sql's Migrator on %s", (backend) => {
  const opened: Array<Database> = []
  const databases: Array<TestPostgres> = []
  afterAll(async () => {
    for (const db of opened) await db.close()
    for (const postgres of databases) await postgres.release()
  })

  // Two services on one fresh database: on PGlite, two starts on the one connection a data directory allows; on
  // PostgreSQL, two pools, as two replicas have.
  const twoServices = async (): Promise<readonly [Database, Database]> => {
    if (backend === "pglite") {
      const db = await emptyPglite()
      opened.push(db)
      return [db, db]
    }
    const postgres = await testPostgres()
    databases.push(postgres)
    const first = await openPostgres(postgres.url, 2)
    opened.push(first)
    const second = await openPostgres(postgres.url, 2)
    opened.push(second)
    return [first, second]
  }

  test("two services starting together apply each migration once, in order, and record each once", async () => {
    const [one, other] = await twoServices()
    const applied = await Promise.all([migrate(one), migrate(other)])
    // One of them applied every migration; the other found them applied (waiting on the first's lock, or after it).
    expect([...applied].sort((a, b) => b.length - a.length)).toEqual([versions, []])
    expect(await recorded(one)).toEqual(versions)
    expect(await recorded(other)).toEqual(versions)
    // The schema is whole: the last migration's column exists.
    expect(await one.query(`select cluster_removal_next_at from jobs`)).toEqual([])
    expect(await migrate(one)).toEqual([])
  })

  test("a database migrated by the earlier runner is adopted by two services starting together: the rest runs once", async () => {
    const [one, other] = await twoServices()
    await migrateAsBefore(one, 5)
    const [row] = await one.query<{ id: number }>(`insert into experiments (grp, name, description, created_on) values ('g', 'kept', '', '2026-12-01T00:00:00.000Z') returning id`)
    const applied = await Promise.all([migrate(one), migrate(other)])
    expect([...applied].sort((a, b) => b.length - a.length)).toEqual([versions.filter((v) => v > 5), []])
    expect(await recorded(one)).toEqual(versions)
    // The earlier record is left as it was, for a service of the earlier version.
    expect((await one.query<{ version: number }>(`select version from schema_migrations order by version`)).map((r) => Number(r.version))).toEqual([1, 2, 3, 4, 5])
    expect(await one.query(`select id, name from experiments`)).toEqual([{ id: row?.id, name: "kept" }])
    expect(await migrate(other)).toEqual([])
  })

  test("a database wholly migrated by the earlier runner runs no migration and records every one", async () => {
    const [db] = await twoServices()
    await migrateAsBefore(db, Math.max(...versions))
    expect(await migrate(db)).toEqual([])
    expect(await recorded(db)).toEqual(versions)
  })
})
