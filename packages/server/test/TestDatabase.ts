// The service's database as the tests drive it from Promise code (a test file is a process edge): a database layer
// opened in a scope of its own, with Promise helpers to write and read rows past the API, to run the service's
// Effects on it, and to wrap it so that chosen statements fail.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Cause, Context, Data, Effect, Exit, Layer, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll } from "vitest"
import { databaseError, DatabaseKind, migrate, type Database, type DatabaseLayer, type Migration } from "../src/index.ts"
import { PGlite } from "@electric-sql/pglite"
import { pgliteLayer, pgliteLayerOver, postgresqlconf } from "../src/store/PgliteDatabase.ts"
import { postgresLayer } from "../src/store/PostgresDatabase.ts"
import { tappedDatabase, type StatementTap } from "../src/store/StatementTap.ts"
import type { backends } from "./Service.ts"
import { testPostgres, type TestPostgres } from "./TestPostgres.ts"

/** Something SQL can be sent to from a test: the database, or one of its open transactions. */
export interface Sql {
  /** Sends one statement; rejects with the DatabaseError it failed with (its SQLSTATE kept). */
  readonly query: <R>(text: string, params?: ReadonlyArray<unknown>) => Promise<ReadonlyArray<R>>
  /** Runs a script of several statements without parameters. */
  readonly exec: (script: string) => Promise<void>
  /** Runs an Effect of the service here (in the transaction, for one's): its value, or rejects with its failure. */
  readonly run: <A, E>(effect: Effect.Effect<A, E, Database>) => Promise<A>
}

/** An open database of the service, for a test. */
export interface TestDatabase extends Sql {
  readonly kind: "pglite" | "postgres"
  /** The open database as the service takes it from context. */
  readonly context: Context.Context<Database>
  /** A layer giving this open database; closing it leaves the database open (a service given it closes nothing). */
  readonly layer: Layer.Layer<Database>
  readonly client: SqlClient.SqlClient
  /** Runs `body` in one transaction: committed when it resolves, rolled back when it rejects. */
  readonly transaction: <A>(body: (sql: Sql) => Promise<A>) => Promise<A>
  readonly close: () => Promise<void>
}

// What a transaction's body threw, carried through effect/sql's transaction unchanged.
class BodyFailed extends Data.TaggedError("BodyFailed")<{ readonly cause: unknown }> {}

const settle = <A>(operation: string, exit: Exit.Exit<A, unknown>): A => {
  if (Exit.isSuccess(exit)) return exit.value
  const failure = Cause.squash(exit.cause)
  throw failure instanceof BodyFailed ? failure.cause : databaseError(operation, failure)
}

const sqlIn = (context: Context.Context<Database>): Sql => {
  const client = Context.get(context, SqlClient.SqlClient)
  const run = Effect.runPromiseExitWith(context)
  return {
    query: async <R>(text: string, params: ReadonlyArray<unknown> = []) => settle("query", await run(client.unsafe<R & object>(text, params))) as ReadonlyArray<R>,
    exec: async (script) => void settle("script", await run(client.unsafe(script).unprepared)),
    run: async (effect) => {
      const exit = await run(effect)
      if (Exit.isSuccess(exit)) return exit.value
      throw Cause.squash(exit.cause)
    }
  }
}

/** The test's view of an open database in `context`; `close` is what closing it means. */
export const testDatabaseOf = (context: Context.Context<Database>, close: () => Promise<void>): TestDatabase => {
  const client = Context.get(context, SqlClient.SqlClient)
  const run = Effect.runPromiseExitWith(context)
  return {
    kind: Context.get(context, DatabaseKind),
    context,
    layer: Layer.succeedContext(context),
    client,
    ...sqlIn(context),
    transaction: async <A>(body: (sql: Sql) => Promise<A>) =>
      settle(
        "transaction",
        await run(
          client.withTransaction(
            Effect.flatMap(Effect.context<Database>(), (inside) => Effect.tryPromise({ try: () => body(sqlIn(inside)), catch: (cause) => new BodyFailed({ cause }) }))
          )
        )
      ),
    close
  }
}

/** Opens the database of `layer` in a scope of its own, which `close` closes. */
export const openTestDatabase = async (layer: DatabaseLayer): Promise<TestDatabase> => {
  const scope = Effect.runSync(Scope.make())
  const built = await Effect.runPromiseExit(Layer.buildWithScope(layer, scope))
  if (Exit.isFailure(built)) {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    throw Cause.squash(built.cause)
  }
  return testDatabaseOf(built.value, () => Effect.runPromise(Scope.close(scope, Exit.void)))
}

/** Embedded PostgreSQL (PGlite) in `dataDir`, or in memory, as the service opens it (a new one from the template). */
export const openPglite = (dataDir?: string): Promise<TestDatabase> => openTestDatabase(pgliteLayer(dataDir))

/** The PostgreSQL at `url`, through a pool of `poolSize` connections. */
export const openPostgres = (url: string, poolSize?: number): Promise<TestDatabase> => openTestDatabase(postgresLayer(url, poolSize))

/** `db` with `tap` run before every statement (`tappedDatabase`). Closing it leaves `db` open. */
export const withTap = (db: TestDatabase, tap: StatementTap): Promise<TestDatabase> => openTestDatabase(tappedDatabase(db.context, tap))

/** A tap that fails the statements `fails` picks with what it answers, and lets the others through. */
export const failWhen =
  (fails: (text: string, params: ReadonlyArray<unknown>) => unknown): StatementTap =>
  (text, params, send) =>
    Effect.suspend(() => {
      const failure = fails(text, params)
      return failure === undefined ? send : Effect.fail(failure)
    })

/** An empty PGlite in memory, not made from the shipped template (initdb's database, without the service's schema). */
export const openEmptyPglite = (): Promise<TestDatabase> => openTestDatabase(pgliteLayerOver("empty PGlite", () => PGlite.create({ postgresqlconf })))

/** Applies every migration of `steps` the database lacks; answers the versions applied. */
export const migrateTest = (db: TestDatabase, steps?: ReadonlyArray<Migration>): Promise<ReadonlyArray<number>> => db.run(migrate(steps))

/** A database for the block's tests on `backend`, opened by `open` (given the PostgreSQL server's URL, or undefined for
 * PGlite) before them and closed after them. */
export const useDatabase = (backend: (typeof backends)[number], open: (postgresUrl: string | undefined) => Promise<TestDatabase>): (() => TestDatabase) => {
  let db: TestDatabase | undefined
  let postgres: TestPostgres | undefined
  beforeAll(async () => {
    postgres = backend === "postgres" ? await testPostgres() : undefined
    db = await open(postgres?.url)
  }, 120_000)
  afterAll(async () => {
    await db?.close()
    await postgres?.release()
  })
  return () => {
    if (db === undefined) throw new Error("the database did not open")
    return db
  }
}

/** Opens and migrates a database of the backend before the block's tests (PGlite in a directory of its own) and
 * closes it, and its directory or PostgreSQL, after them. */
export const useMigratedDatabase = (backend: (typeof backends)[number], name: string): (() => TestDatabase) => {
  let db: TestDatabase | undefined
  let postgres: TestPostgres | undefined
  let dataDir: string | undefined
  beforeAll(async () => {
    postgres = backend === "postgres" ? await testPostgres() : undefined
    dataDir = backend === "pglite" ? await mkdtemp(join(tmpdir(), `dispatch-${name}-`)) : undefined
    db = postgres === undefined ? await openPglite(dataDir) : await openPostgres(postgres.url)
    await migrateTest(db)
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
