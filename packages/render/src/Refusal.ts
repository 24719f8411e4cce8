/** The kinds of refusal and failure the seed names; every later package speaks these. */
export const ErrorKinds = [
  "ErrInvalid",
  "ErrUnsupported",
  "ErrRejected",
  "ErrUnreachable",
  "ErrReadOnly",
  "ErrOutcomeUnknown"
] as const

/** One of the seed's error kinds. */
export type ErrorKind = (typeof ErrorKinds)[number]

/** A refusal as data: the kind, and every reason found, each naming its field. */
export interface Refusal {
  readonly error: ErrorKind
  readonly reasons: ReadonlyArray<string>
}

/** Builds a refusal; callers pass every reason they found, never just the first. */
export const refusal = (error: ErrorKind, reasons: ReadonlyArray<string>): Refusal => ({ error, reasons })

/** The most reasons render lists before summarising the rest, so abusive input cannot make a huge refusal. */
export const MAX_REASONS = 100

/** Builds a refusal whose reasons are capped at MAX_REASONS, the rest counted in a last `... and N more`. */
export const cappedRefusal = (error: ErrorKind, reasons: ReadonlyArray<string>): Refusal =>
  reasons.length <= MAX_REASONS
    ? refusal(error, reasons)
    : refusal(error, [...reasons.slice(0, MAX_REASONS), `... and ${reasons.length - MAX_REASONS} more`])
