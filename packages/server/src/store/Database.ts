import { Context, Effect, Layer, Schema } from "effect"
import { SqlError } from "effect/sql"
import type { SqlClient } from "effect/sql"
import { sqlStateOf } from "./PostgresDialect.ts"

/** Something SQL can be sent to: the database itself, or one open transaction. */
export interface Sql {
  readonly query: <R>(text: string, params?: ReadonlyArray<unknown>) => Promise<ReadonlyArray<R>>
  /** Runs a script of several statements without parameters (a migration). */
  readonly exec: (script: string) => Promise<void>
}

/** A database the service stores everything in: PGlite or PostgreSQL, behind one interface. */
export interface Database extends Sql {
  readonly kind: "pglite" | "postgres"
  /** Runs `body` in one transaction: committed when it resolves, rolled back when it rejects. */
  readonly transaction: <A>(body: (sql: Sql) => Promise<A>) => Promise<A>
  readonly close: () => Promise<void>
  /** Runs an Effect over the database's effect/sql client (outside any transaction of `transaction`). */
  readonly run: <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Promise<A>
}

/** The service's database as an Effect service: one interface, provided by one of two layers (`pgliteLayer` or
 * `postgresLayer`), each of which opens its database when built and closes it when its scope closes. */
export class DatabaseService extends Context.Service<DatabaseService, Database>()("dispatch/Database") {}

/** A layer of the database service from how to open the database: opened when built, closed with its scope. */
export const databaseLayer = (what: string, open: () => Promise<Database>): Layer.Layer<DatabaseService, DatabaseError> =>
  Layer.effect(
    DatabaseService,
    Effect.acquireRelease(
      Effect.tryPromise({ try: open, catch: (cause) => databaseError(`open ${what}`, cause) }),
      (db) => Effect.promise(() => db.close())
    )
  )

/** The database failed or could not be reached; `code` is PostgreSQL's SQLSTATE when it gave one. */
export class DatabaseError extends Schema.TaggedError<DatabaseError>()("DatabaseError", {
  operation: Schema.String,
  reason: Schema.String,
  code: Schema.optionalKey(Schema.String)
}) {
  override get message() {
    return `database ${this.operation} failed: ${this.reason}${this.code === undefined ? "" : ` (SQLSTATE ${this.code})`}`
  }
  get status() {
    return 500 as const
  }
}

/** PostgreSQL's SQLSTATE for a unique constraint violation. */
export const uniqueViolation = "23505"

/** PostgreSQL's SQLSTATE for a foreign key violation: a row named was deleted meanwhile (a snapshot retention let go). */
export const foreignKeyViolation = "23503"

/** Turns whatever a driver threw (or effect/sql's SqlError around it) into a DatabaseError, keeping the SQLSTATE. */
export const databaseError = (operation: string, cause: unknown): DatabaseError => {
  if (cause instanceof DatabaseError) return cause
  const driverError = SqlError.isSqlError(cause) ? cause.reason.cause : cause
  const code = sqlStateOf(driverError)
  const reason = driverError instanceof Error ? driverError.message : String(driverError)
  return code === undefined ? new DatabaseError({ operation, reason }) : new DatabaseError({ operation, reason, code })
}
