import { Stream } from "effect"
import { SqlError, Statement } from "effect/sql"
import type { SqlConnection } from "effect/sql"

// Both stores are PostgreSQL (PGlite is PostgreSQL compiled to WebAssembly): one dialect, one way of reading a
// driver's failure, one way of reading rows, for the two connection layers.

const quoteIdentifier = Statement.defaultEscape('"')

/** effect/sql's statement compiler for PostgreSQL: `$n` parameters and double-quoted identifiers. */
export const postgresCompiler: Statement.Compiler = Statement.makeCompiler({
  dialect: "pg",
  placeholder: (index) => `$${index}`,
  onIdentifier: (value) => quoteIdentifier(value),
  onRecordUpdate: (placeholders, alias, columns, values, returning) => [
    `(values ${placeholders}) as ${alias}${columns}${returning === undefined ? "" : ` returning ${returning[0]}`}`,
    returning === undefined ? values.flat() : [...values.flat(), ...returning[1]]
  ],
  // The service writes no custom fragments; one reaching the compiler is a programming error.
  onCustom: (custom) => {
    throw new Error(`the PostgreSQL compiler has no custom fragment ${String((custom as { kind?: unknown }).kind)}`)
  }
})

/** The SQLSTATE a driver's failure carries, when it carries one. */
export const sqlStateOf = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : undefined

const messageOf = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

/** A driver's failure as effect/sql's SqlError, its reason chosen by PostgreSQL's SQLSTATE class; the driver's error
 * stays the reason's cause, so its SQLSTATE and message are kept. */
export const sqlErrorOf = (operation: string) => (cause: unknown): SqlError.SqlError => {
  const code = sqlStateOf(cause)
  const fields = { cause, message: messageOf(cause), operation }
  const reason =
    code === "23505"
      ? new SqlError.UniqueViolation({ ...fields, constraint: String((cause as { constraint?: unknown }).constraint ?? "") })
      : code?.startsWith("23")
        ? new SqlError.ConstraintError(fields)
        : code === "40P01"
          ? new SqlError.DeadlockError(fields)
          : code === "40001"
            ? new SqlError.SerializationError(fields)
            : code === "55P03"
              ? new SqlError.LockTimeoutError(fields)
              : code === "57014"
                ? new SqlError.StatementTimeoutError(fields)
                : code?.startsWith("28")
                  ? new SqlError.AuthenticationError(fields)
                  : code === "42501"
                    ? new SqlError.AuthorizationError(fields)
                    : code?.startsWith("42")
                      ? new SqlError.SqlSyntaxError(fields)
                      : code === undefined || code.startsWith("08") || code.startsWith("57P") || /^E[A-Z]+$/.test(code)
                        ? new SqlError.ConnectionError(fields)
                        : new SqlError.UnknownError(fields)
  return new SqlError.SqlError({ reason })
}

// Both drivers read a timestamptz as a Date; the service answers times as the ISO-8601 strings it stamped.
/** A row with every Date value turned into its ISO-8601 string (UTC, milliseconds). */
export const isoTimes = <R>(row: R): R => {
  if (typeof row !== "object" || row === null) return row
  let copy: Record<string, unknown> | undefined
  for (const [key, value] of Object.entries(row)) {
    if (value instanceof Date) {
      copy = { ...(copy ?? row), [key]: value.toISOString() }
    }
  }
  return (copy ?? row) as R
}

type TransformRows = (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined

/** Rows as the service reads them: times as ISO-8601 strings, then the client's own transform, if any. */
export const readRows = (rows: ReadonlyArray<any>, transformRows: TransformRows): ReadonlyArray<any> => {
  const read = rows.map(isoTimes)
  return transformRows === undefined ? read : transformRows(read)
}

/** A connection's `executeStream` from its `execute`: the service streams nothing large, so rows come at once. */
export const streamOf =
  (execute: SqlConnection.Connection["execute"]): SqlConnection.Connection["executeStream"] =>
  (sql, params, transformRows) =>
    Stream.fromIterableEffect(execute(sql, params, transformRows))
