import { isPassing, retryAfterOf, type StartError } from "@dispatch/effects"
import { defaultRetryPolicy, type Fault, type RetryPolicy, type Verdict } from "@dispatch/jobs"

/** How the dispatcher spaces retries: the first delay's cap, doubled each attempt, up to a ceiling. */
export interface Backoff {
  readonly baseMs: number
  readonly maxMs: number
}

/** The default spacing of retries, the dispatch machine's own: capped at 1 s, doubling, at most 5 min. */
export const defaultBackoff: Backoff = { baseMs: defaultRetryPolicy.baseMs, maxMs: defaultRetryPolicy.maxMs }

// By the error's tag and the cause Start recorded (`isPassing`), never by its reasons' text: a refusal the same
// request would get again fails the job; a fault that a retry may pass is retried as a new attempt.
/** The verdict on one of Start's (or Open's, Find's, Stop's) typed errors. */
export const verdictOf = (error: StartError): Verdict => {
  if (error._tag === "ErrOutcomeUnknown") return "unknown"
  if (error._tag === "ErrReadOnly") return "readOnly"
  return isPassing(error) ? "passing" : "refused"
}

/** A typed error as the dispatch machine takes it: its verdict, its reasons, the server's Retry-After, and for an
 * unanswered create the time it may land until (`callBoundMs` after now). */
export const faultOf = (error: StartError, nowMs: number, callBoundMs: number): Fault => {
  const verdict = verdictOf(error)
  const retryAfterMs = retryAfterOf(error)
  return {
    verdict,
    reason: `${error._tag}: ${error.reasons.join("; ")}`,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(verdict === "unknown" ? { landsBy: nowMs + callBoundMs } : {})
  }
}

/** The retry policy of a dispatcher's options: its backoff, and the machine's default budget unless given. */
export const retryPolicyOf = (backoff: Backoff, budget: Partial<Pick<RetryPolicy, "maxAttempts" | "maxElapsedMs">>, defaults: RetryPolicy): RetryPolicy => ({
  baseMs: backoff.baseMs,
  maxMs: backoff.maxMs,
  maxAttempts: budget.maxAttempts ?? defaults.maxAttempts,
  maxElapsedMs: budget.maxElapsedMs ?? defaults.maxElapsedMs
})
