import { Result, Schema } from "effect"

const unitSeconds = { d: 86_400, h: 3_600, m: 60, s: 1 } as const

/** The timeout a job gets when it names none: 24 hours, as upstream Dioptra. */
export const defaultTimeout = "24h"

// dispatch hands the limit to go/dispatch as a Go time.Duration (int64 nanoseconds), so nothing longer fits.
/** The longest timeout accepted, in seconds: the largest whole second a Go time.Duration holds (~292 years). */
export const maxTimeoutSeconds = 9_223_372_036

const grammar = /^([0-9]+)([dhmsDHMS]?)$/

/** A timeout that is not `<integer>[d|h|m|s]`, or is zero or too long; refused when the job is created. */
export class InvalidTimeout extends Schema.TaggedError<InvalidTimeout>()("InvalidTimeout", {
  timeout: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `timeout ${JSON.stringify(this.timeout)} is refused: ${this.reason}`
  }
  get status() {
    return 400 as const
  }
}

const refuse = (timeout: string, reason: string) => Result.fail(new InvalidTimeout({ timeout, reason }))

// Upstream stores a bad timeout and fails later with a 500, leaving the job queued forever; here every such
// string is refused before the job exists.
/** Parses a timeout (`90`, `90s`, `15m`, `2h`, `1d`, unit case-insensitive) into whole seconds. */
export const parseTimeout = (timeout: string): Result.Result<number, InvalidTimeout> => {
  const match = grammar.exec(timeout)
  if (match === null) {
    return refuse(timeout, "expected a whole number followed by an optional unit d, h, m or s (no sign, decimals or spaces)")
  }
  const [, digits = "", unit = ""] = match
  const perUnit = unitSeconds[(unit.toLowerCase() || "s") as keyof typeof unitSeconds]
  // Compared in BigInt so a very long digit string is refused, not rounded into range.
  const seconds = BigInt(digits) * BigInt(perUnit)
  if (seconds === 0n) return refuse(timeout, "a job needs at least one second to run")
  if (seconds > BigInt(maxTimeoutSeconds)) return refuse(timeout, `it is longer than ${maxTimeoutSeconds} seconds`)
  return Result.succeed(Number(seconds))
}

/** Formats whole seconds in the largest unit that divides them exactly (`86400` -> `1d`, `90` -> `90s`). */
export const formatTimeout = (seconds: number): string => {
  for (const unit of ["d", "h", "m"] as const) {
    if (seconds % unitSeconds[unit] === 0) return `${seconds / unitSeconds[unit]}${unit}`
  }
  return `${seconds}s`
}
