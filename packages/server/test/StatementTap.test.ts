// A tapped database: the tap runs around every statement it sends, a transaction's BEGIN and COMMIT too, on the
// statement's own connection; what the tap fails with is the statement's failure, its SQLSTATE kept; and closing
// the tapped database leaves the one under it open.
import { Effect } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { databaseError, DatabaseError, uniqueViolation } from "../src/store/Database.ts"
import { failWhen, openPglite, withTap, type TestDatabase } from "./TestDatabase.ts"

describe("a tapped database", () => {
  let db: TestDatabase
  beforeAll(async () => {
    db = await openPglite()
    await db.exec(`create table tapped (n int primary key)`)
  })
  afterAll(async () => db.close())

  test("runs the tap around each statement, a transaction's control statements too, in the order sent", async () => {
    const seen: Array<string> = []
    const tapped = await withTap(db, (text, params, send) => Effect.andThen(Effect.sync(() => void seen.push(`${text.trim().split(/\s+/)[0]} ${JSON.stringify(params)}`)), send))
    await tapped.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(Effect.andThen(sql`insert into tapped (n) values (${1})`, sql`select n from tapped`))))
    await tapped.close()
    expect(seen).toEqual(["BEGIN []", "insert [1]", "select []", "COMMIT []"])
    // Closing the tapped database left the one under it open.
    expect(await db.query(`select n from tapped`)).toEqual([{ n: 1 }])
  })

  test("a statement the tap refuses is not sent: the transaction rolls back, and the failure keeps its SQLSTATE", async () => {
    const refused = Object.assign(new Error("duplicate key"), { code: uniqueViolation })
    const tapped = await withTap(db, failWhen((text) => (/^insert/.test(text) ? refused : undefined)))
    const failure = await tapped
      .run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(Effect.andThen(sql`delete from tapped`, sql`insert into tapped (n) values (${2})`))))
      .then(() => undefined, (cause: unknown) => cause)
      .finally(tapped.close)
    expect(SqlError.isSqlError(failure)).toBe(true)
    expect(databaseError("query", failure)).toEqual(new DatabaseError({ operation: "query", reason: "duplicate key", code: uniqueViolation }))
    expect(await db.query(`select n from tapped order by n`)).toEqual([{ n: 1 }])
  })

  test("a tap may change what a statement answers", async () => {
    const tapped = await withTap(db, (_, __, send) => Effect.map(send, (rows) => (Array.isArray(rows) ? rows.map(() => ({ n: 42 })) : rows) as typeof rows))
    expect(await tapped.query(`select n from tapped`).finally(tapped.close)).toEqual([{ n: 42 }])
  })
})
