// How Open, Hold and Release change an object: read it, decide, write one change with the read's
// resourceVersion as precondition, and read again, until a read shows the wanted state. A read that
// shows it is the verification; a conflict or an unanswered write is followed by a fresh read, and any
// other passing fault (429, 5xx, a refused connection) by a fresh read after the retry policy's wait.
import { Clock, Effect, Random } from "effect"
import { causeOf, type ClusterCause, kindOfClusterError } from "../ClusterCause.ts"
import type { ClusterError } from "../ClusterError.ts"
import { RETRY_POLICY, retryWait } from "../RetryPolicy.ts"
import { POLL_INTERVAL_MS } from "../PollUntil.ts"
import { libraryLog } from "../LibraryLog.ts"
import { ErrOutcomeUnknown, ErrRejected, type ObjectRef } from "../StartErrors.ts"
import { writeFailure, type LifecycleError } from "./LifecycleErrors.ts"

/** What to do after a read. */
export type Decision<R> =
  /** The read shows the wanted state: done. */
  | { readonly kind: "done" }
  /** Write this change (preconditioned on what was read), then read again. */
  | { readonly kind: "write"; readonly write: Effect.Effect<unknown, ClusterError, R> }
  /** Someone else (Kueue) has to act first: wait a second and read again, until the deadline. */
  | { readonly kind: "wait"; readonly reason: string }
  /** The wanted state does not hold and no write may make it: refused (ErrRejected). */
  | { readonly kind: "refuse"; readonly reason: string }

/** One convergence: what it is for (in errors), how to read and how to decide. */
export interface Convergence<S, R> {
  readonly what: string
  readonly ref: ObjectRef
  readonly read: Effect.Effect<S, LifecycleError, R>
  readonly decide: (state: S) => Decision<R>
  /** How long waits may last in all (Effect Clock). */
  readonly waitMs: number
}

/** How many writes one convergence may make: a Kueue transition needs two (gate then check, or Retry
 * then Pending), which leaves room for three conflicts with other writers such as Kueue itself. */
export const MAX_WRITES = 5

/** Reads, writes and reads again until the read shows the wanted state; bounded by MAX_WRITES writes
 * and `waitMs` of waiting, and by the retry policy's tries for writes that met a passing fault other than
 * a Conflict or no answer. Ending unconverged is ErrRejected (with the last failed write's cause), or
 * ErrOutcomeUnknown when the last write went unanswered. */
export const converge = <S, R>(c: Convergence<S, R>): Effect.Effect<S, LifecycleError, R> =>
  Effect.gen(function* () {
    const deadline = (yield* Clock.currentTimeMillis) + c.waitMs
    let writes = 0
    let lastUnanswered = false
    let lastCause: ClusterCause | undefined
    let passingFaults = 0
    const why: Array<string> = []
    // Bounded: every pass either returns, writes (at most MAX_WRITES), or sleeps towards the deadline.
    for (;;) {
      const state = yield* c.read
      const decision = c.decide(state)
      if (decision.kind === "done") return state
      if (decision.kind === "refuse") return yield* new ErrRejected({ reasons: [`${c.what}: ${decision.reason}`], ref: c.ref })
      if (decision.kind === "wait") {
        const now = yield* Clock.currentTimeMillis
        if (now >= deadline) return yield* new ErrRejected({ reasons: [`${c.what}: still waiting after ${c.waitMs} ms: ${decision.reason}`], ref: c.ref })
        // Not pollUntil: a write is followed by an immediate read, and only a wait sleeps.
        yield* Effect.sleep(Math.min(POLL_INTERVAL_MS, deadline - now))
        continue
      }
      if (writes >= MAX_WRITES) {
        const reasons = [`${c.what}: the change did not hold after ${MAX_WRITES} writes`, ...why]
        const cause = lastCause === undefined ? {} : { cause: lastCause }
        return yield* lastUnanswered ? new ErrOutcomeUnknown({ reasons, ref: c.ref, ...cause }) : new ErrRejected({ reasons, ref: c.ref, ...cause })
      }
      writes++
      const written = yield* Effect.result(decision.write)
      if (written._tag === "Success") {
        yield* libraryLog("Debug", `${c.what}: wrote a change`)
        lastUnanswered = false
        lastCause = undefined
        continue
      }
      const error = written.failure
      const rereads = error.reason === "Conflict" || error.reason === "Unanswered"
      if (!rereads) {
        // Not applied ("not now"): wait as the policy says, then read and decide again.
        passingFaults++
        const after = error.retryAfterMs ?? 0
        if (kindOfClusterError(error) !== "Passing" || passingFaults >= RETRY_POLICY.tries || after > RETRY_POLICY.maxWaitMs) return yield* writeFailure(error, c.ref)
        yield* Effect.sleep(retryWait(RETRY_POLICY, passingFaults - 1, yield* Random.next, error.retryAfterMs))
      }
      yield* libraryLog("Info", `${c.what}: write not confirmed, reading again`).pipe(Effect.annotateLogs({ reason: error.reason }))
      lastUnanswered = error.reason === "Unanswered"
      lastCause = causeOf(error)
      why.push(...error.reasons)
    }
  })
