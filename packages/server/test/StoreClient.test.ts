// The one effect/sql client under both stores, as the service's code meets it: PostgreSQL's SQLSTATE survives as
// data (a unique or foreign-key violation), a transaction commits whole or not at all, and what a transaction's body
// throws comes back unchanged; a repository's statements join the transaction its caller holds.
import { fc, test as property } from "@fast-check/vitest"
import { Effect, Option } from "effect"
import { SqlError } from "effect/sql"
import { describe, expect, test } from "vitest"
import { databaseError, DatabaseError, foreignKeyViolation, uniqueViolation } from "../src/store/Database.ts"
import { loginSessions, type LoginSessions } from "../src/store/LoginSessions.ts"
import { sqlErrorOf } from "../src/store/PostgresDialect.ts"
import { failWhen, migrateTest as migrate, openPglite, openPostgres, useDatabase, withTap, type Sql } from "./TestDatabase.ts"
import { backends } from "./Service.ts"

describe("a driver's failure read into effect/sql's SqlError", () => {
  property.prop([fc.stringMatching(/^[0-9A-Z]{5}$/), fc.string()])("keeps its SQLSTATE and message through to the service's DatabaseError", (code, message) => {
    const driverError = Object.assign(new Error(message), { code })
    const read = sqlErrorOf("execute")(driverError)
    expect(read.reason.cause).toBe(driverError)
    expect(databaseError("query", read)).toEqual(new DatabaseError({ operation: "query", reason: message, code }))
  })

  test("its reason follows PostgreSQL's classes", () => {
    const reason = (code: string | undefined) => sqlErrorOf("execute")(Object.assign(new Error("x"), code === undefined ? {} : { code })).reason._tag
    expect([reason("23505"), reason("23503"), reason("40P01"), reason("40001"), reason("42P01"), reason("28P01"), reason("08006"), reason("XX000"), reason(undefined)]).toEqual([
      "UniqueViolation",
      "ConstraintError",
      "DeadlockError",
      "SerializationError",
      "SqlSyntaxError",
      "AuthenticationError",
      "ConnectionError",
      "UnknownError",
      "ConnectionError"
    ])
    expect(SqlError.isSqlError(sqlErrorOf("execute")(new Error("x")))).toBe(true)
  })
})

/** `use` of the login sessions' repository, run on `sql` (the database, or one of its transactions). */
const onStore = <A>(sql: Sql, use: (sessions: LoginSessions) => Effect.Effect<A, unknown, never>) => sql.run(Effect.flatMap(loginSessions, use))

describe.each(backends)("the SqlClient under the service on %s", (backend) => {
  const opened = useDatabase(backend, async (url) => {
    const db = url === undefined ? await openPglite() : await openPostgres(url, 4)
    await migrate(db)
    return db
  })

  test("a unique and a foreign-key violation arrive as DatabaseErrors carrying their SQLSTATE", async () => {
    const db = opened()
    await db.query(`insert into groups (name) values ('taken')`)
    const unique = await db.query(`insert into groups (name) values ('taken')`).then(() => undefined, (cause: unknown) => cause)
    expect(unique).toBeInstanceOf(DatabaseError)
    expect((unique as DatabaseError).code).toBe(uniqueViolation)
    const foreign = await db.query(`insert into sessions (token_hash, user_id, created_on, expires_on) values ('h', 999999, now(), now())`).then(() => undefined, (cause: unknown) => cause)
    expect((foreign as DatabaseError).code).toBe(foreignKeyViolation)
  })

  test("a transaction whose body throws writes nothing and rejects with what the body threw", async () => {
    const db = opened()
    const thrown = new Error("the body's own failure")
    const outcome = await db
      .transaction(async (sql) => {
        await sql.query(`insert into groups (name) values ('rolled back')`)
        await onStore(sql, (sessions) => sessions.countFailure("user:rolled-back", "2026-12-01T00:00:00.000Z", "2026-11-30T23:45:00.000Z"))
        throw thrown
      })
      .then(() => undefined, (cause: unknown) => cause)
    expect(outcome).toBe(thrown)
    expect(await db.query(`select name from groups where name = 'rolled back'`)).toEqual([])
    expect(await db.query(`select key from login_failures where key = 'user:rolled-back'`)).toEqual([])
  })

  test("a repository's statements run in the caller's transaction and are committed with it", async () => {
    const db = opened()
    await db.transaction(async (sql) => {
      await onStore(sql, (sessions) => sessions.countFailure("user:kept", "2026-12-01T00:00:00.000Z", "2026-11-30T23:45:00.000Z"))
      // Seen inside the transaction before it commits.
      expect(Option.getOrUndefined(await onStore(sql, (sessions) => sessions.failures("user:kept")))).toEqual({
        failures: 1,
        first_failed_on: "2026-12-01T00:00:00.000Z"
      })
    })
    expect(await db.query(`select failures from login_failures where key = 'user:kept'`)).toEqual([{ failures: 1 }])
  })

  test("a statement a repository sends that the database refuses fails with the SqlError around the DatabaseError it was refused with", async () => {
    const failing = await withTap(opened(), failWhen(() => new DatabaseError({ operation: "query", reason: "injected" })))
    const outcome = await onStore(failing, (sessions) => sessions.failures("any")).then(() => undefined, (cause: unknown) => cause).finally(failing.close)
    expect(SqlError.isSqlError(outcome)).toBe(true)
    expect(databaseError("query", outcome)).toEqual(new DatabaseError({ operation: "query", reason: "injected" }))
  })
})
