import type { StartError } from "@dispatch/effects"

/** How the dispatcher spaces retries: the first delay, doubled each attempt, up to a ceiling. */
export interface Backoff {
  readonly baseMs: number
  readonly maxMs: number
}

/** The default spacing of retries: 1 s, doubling, at most 5 min. */
export const defaultBackoff: Backoff = { baseMs: 1000, maxMs: 300_000 }

/** The delay before attempt `attempt + 1` after `attempt` failed attempts (attempt >= 1). */
export const backoffMs = (backoff: Backoff, attempt: number): number => {
  const exponent = Math.max(0, Math.min(attempt - 1, 52))
  return Math.min(backoff.maxMs, backoff.baseMs * 2 ** exponent)
}

/** What the service does with a job after one of Start's (or Open's) typed errors, as docs/errors.md says. */
export type ErrorAction =
  /** The job is wrong for this backend or the cluster refused it: the job fails with the reasons. */
  | { readonly kind: "fail"; readonly reasons: ReadonlyArray<string> }
  /** Transient: try again after the delay (the next attempt looks with Find first). */
  | { readonly kind: "retry"; readonly delayMs: number; readonly reasons: ReadonlyArray<string> }
  /** The backend lost its write gate: the job stays queued and the queue's gate is proven again. */
  | { readonly kind: "reprove"; readonly delayMs: number; readonly reasons: ReadonlyArray<string> }

/** The action for an error after `attempt` attempts: ErrInvalid, ErrUnsupported and ErrRejected fail the job;
 * ErrUnreachable and ErrOutcomeUnknown retry with backoff (the retry begins with Find, so a job whose create
 * may have landed is never started twice); ErrReadOnly sends the queue back to its Factory. */
export const errorAction = (error: StartError, attempt: number, backoff: Backoff): ErrorAction => {
  const reasons = [`${error._tag}: ${error.reasons.join("; ")}`]
  switch (error._tag) {
    case "ErrInvalid":
    case "ErrUnsupported":
    case "ErrRejected":
      return { kind: "fail", reasons }
    case "ErrUnreachable":
    case "ErrOutcomeUnknown":
      return { kind: "retry", delayMs: backoffMs(backoff, attempt), reasons }
    case "ErrReadOnly":
      return { kind: "reprove", delayMs: backoffMs(backoff, attempt), reasons }
  }
}
