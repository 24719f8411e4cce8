// A Clock that runs `speed` times faster than the one it is built on: the demo's embedded simulator
// follows the Effect Clock (SimCluster keeps them in step), so its controllers see seconds pass while
// the terminal sees a fraction of that.
import { Clock, Duration, Effect } from "effect"

/** `base` sped up `speed` times: time since creation is multiplied, sleeps are divided. */
export const fastClock = (base: Clock.Clock, speed: number): Clock.Clock => {
  const originMs = base.currentTimeMillisUnsafe()
  const originNanos = base.monotonicTimeNanosUnsafe()
  const millis = () => originMs + (base.currentTimeMillisUnsafe() - originMs) * speed
  const nanos = () => BigInt(Math.round(millis() * 1_000_000))
  const monotonic = () => originNanos + (base.monotonicTimeNanosUnsafe() - originNanos) * BigInt(speed)
  return {
    currentTimeMillisUnsafe: millis,
    currentTimeMillis: Effect.sync(millis),
    currentTimeNanosUnsafe: nanos,
    currentTimeNanos: Effect.sync(nanos),
    monotonicTimeNanosUnsafe: monotonic,
    monotonicTimeNanos: Effect.sync(monotonic),
    sleep: (duration) => base.sleep(Duration.millis(Duration.toMillis(duration) / speed))
  }
}

/** Runs `effect` with the Clock sped up `speed` times (a whole number of at least 1). */
export const withFastClock = (speed: number) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Clock.clockWith(Effect.succeed), (base) => Effect.provideService(effect, Clock.Clock, fastClock(base, speed)))
