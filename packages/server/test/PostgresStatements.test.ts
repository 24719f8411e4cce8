// The service's statements are prepared once per PostgreSQL connection under a name (planning them cost more than
// running them); texts past the limit stay unnamed, and a plan made stale by another process's migration is not an error.
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { statementNamer } from "../src/store/PostgresDatabase.ts"
import { openPostgres, type TestDatabase as Database } from "./TestDatabase.ts"
import { testPostgres, type TestPostgres } from "./TestPostgres.ts"

describe("PostgreSQL statements", () => {
  let postgres: TestPostgres | undefined
  let db: Database
  beforeAll(async () => {
    postgres = await testPostgres()
    // One connection: what one statement prepared there is what the next sees.
    db = await openPostgres(postgres.url, 1)
  })
  afterAll(async () => {
    await db.close()
    await postgres?.release()
  })

  test("a statement is prepared under its name once and then reused by the connection", async () => {
    const text = `select $1::int + 1 as n`
    expect(await db.query(text, [1])).toEqual([{ n: 2 }])
    expect(await db.query(text, [41])).toEqual([{ n: 42 }])
    const prepared = await db.query<{ name: string; statement: string }>(`select name, statement from pg_prepared_statements where statement = $1`, [text])
    expect(prepared).toEqual([{ name: expect.stringMatching(/^dispatch_\d+$/), statement: text }])
  })

  test("a table whose columns changed after its statement was prepared still answers it", async () => {
    await db.exec(`create table if not exists stale_plan (a int); insert into stale_plan values (1)`)
    const text = `select * from stale_plan where a = $1`
    expect(await db.query(text, [1])).toEqual([{ a: 1 }])
    expect(await db.query(`select count(*)::int as n from pg_prepared_statements where statement = $1`, [text])).toEqual([{ n: 1 }])
    await db.exec(`alter table stale_plan add column b int default 7`)
    expect(await db.query(text, [1])).toEqual([{ a: 1, b: 7 }])
  })

  test("past the limit of named texts, statements run unnamed", async () => {
    for (let i = 0; i < 600; i++) expect(await db.query(`select $1::int + ${i} as n`, [1])).toEqual([{ n: 1 + i }])
    expect(await db.query(`select 'never named before' as n`)).toEqual([{ n: "never named before" }])
    expect(await db.query(`select count(*)::int as n from pg_prepared_statements where statement = 'select ''never named before'' as n'`)).toEqual([{ n: 0 }])
  })

  test("a client's names: one per text, in order of first use, none past the limit", () => {
    const name = statementNamer(2)
    expect([name("a"), name("b"), name("a"), name("c"), name("b")]).toEqual(["dispatch_1", "dispatch_2", "dispatch_1", undefined, "dispatch_2"])
    expect(statementNamer(2)("c")).toBe("dispatch_1")
  })
})
