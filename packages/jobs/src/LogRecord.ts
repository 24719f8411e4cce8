import { Schema } from "effect"
import { ResourceId } from "./ResourceId.ts"
import { Description, Text, textLimits } from "./Text.ts"

/** The severities a job's log record may have. */
export const Severity = Schema.Literals(["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"])
/** The severity of a log record. */
export type Severity = typeof Severity.Type

/** A log record as a job posts it; the server adds the time. */
export const LogInput = Schema.Struct({ severity: Severity, loggerName: Text(textLimits.name), message: Description })
/** A log record as a job posts it. */
export type LogInput = typeof LogInput.Type

/** A stored log record of a job, stamped by the server when it was received (Dioptra's `createdOn`). */
export const LogRecord = Schema.Struct({
  job: ResourceId,
  severity: Severity,
  loggerName: Schema.String,
  message: Schema.String,
  createdOn: Schema.String
})
/** A stored log record of a job. */
export type LogRecord = typeof LogRecord.Type

/** Stamps a posted log record with its job and the server's time; the client's clock is never trusted. */
export const stampLog = (job: number, input: LogInput, at: string): LogRecord => ({ job, ...input, createdOn: at })
