// The campaign's clocks. The simulator's clock follows real time `speed` times faster, moved by its ticker, and
// is skipped forward by the schedule. The service's clock, and the Effect Clock its cluster calls run on, read
// the simulator's clock plus what the service alone has skipped: time the service sees pass has also passed for
// the simulated controllers, so no wait of the service (a backoff, a lease, the bound of an unanswered create,
// Kueue's Workload wait) can run out before the cluster had that time, however slow the machine.
import { Duration, Effect, Layer, Clock } from "effect"

/** How many clock ms pass per real ms. */
export const campaignSpeed = 10

/** The controlled clocks of one campaign. */
export interface CampaignClock {
  /** The service's clock, epoch ms. */
  readonly now: () => number
  /** What the simulator's ticker reads as real time. */
  readonly simRealTime: () => number
  /** Moves the service's clock forward, and only it (the simulator's controllers do not run through it). */
  readonly skip: (ms: number) => void
  /** Moves the simulator's clock forward at its next tick (and the service's with it). */
  readonly skipSim: (ms: number) => void
  /** The Effect Clock of the service's cluster calls: `now`, with sleeps `speed` times shorter in real time (a
   * sleeper woken early by a slow ticker finds less time passed and waits again). */
  readonly effectClock: Layer.Layer<never>
}

/** Clocks over the simulator's clock `simNow`; the service's starts at the real time now. */
export const campaignClock = (simNow: () => number, speed = campaignSpeed): CampaignClock => {
  const realStart = performance.now()
  const offset = Date.now() - simNow()
  let skipped = 0
  let simSkipped = 0
  // Whole milliseconds: the simulator's clock follows a fractional real time.
  const now = () => Math.floor(simNow() + offset + skipped)
  const nanos = () => BigInt(now()) * 1_000_000n
  const clock: Clock.Clock = {
    currentTimeMillisUnsafe: now,
    currentTimeMillis: Effect.sync(now),
    currentTimeNanosUnsafe: nanos,
    currentTimeNanos: Effect.sync(nanos),
    monotonicTimeNanosUnsafe: nanos,
    monotonicTimeNanos: Effect.sync(nanos),
    sleep: (duration) =>
      Effect.callback<void>((resume) => {
        const timer = setTimeout(() => resume(Effect.void), Duration.toMillis(duration) / speed)
        return Effect.sync(() => clearTimeout(timer))
      })
  }
  return {
    now,
    simRealTime: () => realStart + (performance.now() - realStart) * speed + simSkipped,
    skip: (ms) => void (skipped += ms),
    skipSim: (ms) => void (simSkipped += ms),
    effectClock: Layer.succeed(Clock.Clock, clock)
  }
}
