// Retry by cause: a call that failed with a passing fault (unanswered, 429, 500/502/503/504, a refused or
// reset connection, a Conflict where the caller re-reads) is tried again in place, after a capped
// exponential backoff with full jitter and never sooner than the server's Retry-After, a bounded number of
// times; a refusal is never retried. Waits are on the Effect Clock and draws from Effect's Random, so
// tests run them on a TestClock with a seed.
import { Effect, Random, Result } from "effect"
import { causeOf, type ClusterCause } from "./ClusterCause.ts"
import type { ClusterError } from "./ClusterError.ts"
import { libraryLog } from "./LibraryLog.ts"
import { causeOfError, type StartError } from "./StartErrors.ts"

/** How often and how long a step retries a passing fault before it fails. */
export interface RetryPolicy {
  /** Tries in all, the first included. */
  readonly tries: number
  /** The ceiling of the first retry's wait; it doubles with each retry. */
  readonly baseMs: number
  /** No ceiling exceeds this. */
  readonly capMs: number
  /** A Retry-After longer than this ends the retries at once: the step fails, and the error carries the
   * wait, for a supervisor to honour. */
  readonly maxWaitMs: number
}

/** The policy every step uses: 4 tries, waits drawn from [0, min(5 s, 200 ms * 2^n)], Retry-After
 * honoured up to 30 s. */
export const RETRY_POLICY: RetryPolicy = { tries: 4, baseMs: 200, capMs: 5000, maxWaitMs: 30_000 }

/** The longest wait before retry `retry` (0 for the first): min(cap, base * 2^retry). */
export const backoffCeiling = (policy: RetryPolicy, retry: number): number => Math.min(policy.capMs, policy.baseMs * 2 ** retry)

/** The wait before retry `retry`, given a draw from [0, 1): a whole number of ms in [0, ceiling] (full
 * jitter), raised to the server's Retry-After when it asked for longer. */
export const retryWait = (policy: RetryPolicy, retry: number, draw: number, retryAfterMs: number | undefined): number =>
  Math.max(Math.floor(draw * (backoffCeiling(policy, retry) + 1)), retryAfterMs ?? 0)

/** Runs `effect`, and again while it fails with a passing cause (as `causeOfFailure` reads it), up to
 * the policy's tries; the last failure is the one returned. */
export const retryByCause = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  causeOfFailure: (error: E) => ClusterCause | undefined,
  policy: RetryPolicy = RETRY_POLICY
): Effect.Effect<A, E, R> =>
  Effect.gen(function* () {
    // Bounded: each pass returns, fails, or counts one more retry towards policy.tries.
    for (let retry = 0; ; retry++) {
      const result = yield* Effect.result(effect)
      if (Result.isSuccess(result)) return result.success
      const cause = causeOfFailure(result.failure)
      if (cause?.kind !== "Passing" || retry + 1 >= policy.tries || (cause.retryAfterMs ?? 0) > policy.maxWaitMs) return yield* Effect.fail(result.failure)
      const wait = retryWait(policy, retry, yield* Random.next, cause.retryAfterMs)
      yield* libraryLog("Debug", `passing fault (${cause.reason}${cause.code === undefined ? "" : ` ${cause.code}`}): trying again in ${wait} ms`)
      yield* Effect.sleep(wait)
    }
  })

/** A cluster call, retried while it fails with a passing fault. For reads, and for writes that are safe to
 * send again as they are (a delete with preconditions). A Conflict is returned at once: the same call
 * would meet it again, and the fresh read that settles it is the caller's. */
export const retryCall = <A, R>(call: Effect.Effect<A, ClusterError, R>, policy: RetryPolicy = RETRY_POLICY): Effect.Effect<A, ClusterError, R> =>
  retryByCause(call, (e) => (e.reason === "Conflict" ? undefined : causeOf(e)), policy)

/** A read already mapped to a StartError, retried while its cause is passing. */
export const retryRead = <A, R>(read: Effect.Effect<A, StartError, R>, policy: RetryPolicy = RETRY_POLICY): Effect.Effect<A, StartError, R> =>
  retryByCause(read, causeOfError, policy)
