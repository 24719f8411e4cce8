// Waiting on someone else (Kueue, the garbage collector, another probe): read once a second on the
// Effect Clock until the read is what is wanted or the time is up.
import { Clock, Effect } from "effect"

/** How often a poll reads again. */
export const POLL_INTERVAL_MS = 1000

/** What a poll ended with: the last read, and whether it was the one wanted (false: time ran out). */
export interface Polled<A> {
  readonly value: A
  readonly done: boolean
}

/** Reads, and reads again once a second (or after `atLeastMs` of the last read, when longer: a server's
 * Retry-After, which ends the poll when it reaches past the deadline) until `done` holds or `waitMs` has passed (at least one read; the last sleep is cut to end
 * on the deadline). Bounded: each pass returns or sleeps towards it. */
export const pollUntil = <A, E, R>(
  read: Effect.Effect<A, E, R>,
  done: (value: A) => boolean,
  waitMs: number,
  atLeastMs: (value: A) => number = () => 0
): Effect.Effect<Polled<A>, E, R> =>
  Effect.gen(function* () {
    const deadline = (yield* Clock.currentTimeMillis) + waitMs
    for (;;) {
      const value = yield* read
      if (done(value)) return { value, done: true }
      const now = yield* Clock.currentTimeMillis
      const atLeast = atLeastMs(value)
      // A server that asks for a wait past the deadline is not asked again before it.
      if (now >= deadline || now + atLeast > deadline) return { value, done: false }
      yield* Effect.sleep(Math.min(Math.max(POLL_INTERVAL_MS, atLeast), deadline - now))
    }
  })
