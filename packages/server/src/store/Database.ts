import { Context, Layer, Schema } from "effect"
import { SqlError } from "effect/sql"
import type { SqlClient } from "effect/sql"
import { sqlStateOf } from "./PostgresDialect.ts"

/** Which PostgreSQL the service stores in: the embedded PGlite, or a server. */
export class DatabaseKind extends Context.Service<DatabaseKind, "pglite" | "postgres">()("dispatch/DatabaseKind") {}

/** The service's database as its callers take it from context: effect/sql's client, and which store it is. */
export type Database = SqlClient.SqlClient | DatabaseKind

/** How the service's database is opened: a layer (`pgliteLayer`, `postgresLayer`) that opens it when built and
 * closes it when its scope closes. */
export type DatabaseLayer = Layer.Layer<Database, DatabaseError>

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
  if (driverError instanceof DatabaseError) return driverError
  const code = sqlStateOf(driverError)
  const reason = driverError instanceof Error ? driverError.message : String(driverError)
  return code === undefined ? new DatabaseError({ operation, reason }) : new DatabaseError({ operation, reason, code })
}

/** What a failure says, in words: for a statement's, the driver's own message. */
export const reasonOf = (cause: unknown): string => {
  const driverError = SqlError.isSqlError(cause) ? cause.reason.cause : cause
  return driverError instanceof Error ? driverError.message : String(driverError)
}
