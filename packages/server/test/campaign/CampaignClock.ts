// The campaign's clocks. The service's clock and the Effect Clock its cluster calls run on are one clock that
// runs `speed` times faster than real time and can be skipped forward; the simulator's clock follows real time
// at the same speed and is skipped on its own. Every wait the service makes (backoffs, leases, the bound of an
// unanswered create, Kueue's Workload wait) is on these clocks, so a schedule moves past them by skipping
// instead of waiting.
import { Duration, Effect, Layer, Clock } from "effect"

/** How many clock ms pass per real ms. */
export const campaignSpeed = 10

/** The controlled clocks of one campaign. */
export interface CampaignClock {
  /** The service's clock, epoch ms. */
  readonly now: () => number
  /** What the simulator's ticker reads as real time. */
  readonly simRealTime: () => number
  /** Moves the service's clock forward. */
  readonly skip: (ms: number) => void
  /** Moves the simulator's clock forward (its next tick applies it). */
  readonly skipSim: (ms: number) => void
  /** The Effect Clock of the service's cluster calls: `now`, with sleeps `speed` times shorter in real time. */
  readonly effectClock: Layer.Layer<never>
}

/** Clocks starting now (service) and at real time (simulator). */
export const campaignClock = (speed = campaignSpeed): CampaignClock => {
  const realStart = performance.now()
  const origin = Date.now()
  let skipped = 0
  let simSkipped = 0
  const elapsed = () => (performance.now() - realStart) * speed
  const now = () => Math.floor(origin + elapsed() + skipped)
  const clock: Clock.Clock = {
    currentTimeMillisUnsafe: now,
    currentTimeMillis: Effect.sync(now),
    currentTimeNanosUnsafe: () => BigInt(now()) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(now()) * 1_000_000n),
    monotonicTimeNanosUnsafe: () => BigInt(Math.floor((elapsed() + skipped) * 1_000_000)),
    monotonicTimeNanos: Effect.sync(() => BigInt(Math.floor((elapsed() + skipped) * 1_000_000))),
    sleep: (duration) =>
      Effect.callback<void>((resume) => {
        const timer = setTimeout(() => resume(Effect.void), Duration.toMillis(duration) / speed)
        return Effect.sync(() => clearTimeout(timer))
      })
  }
  return {
    now,
    simRealTime: () => realStart + elapsed() + simSkipped,
    skip: (ms) => void (skipped += ms),
    skipSim: (ms) => void (simSkipped += ms),
    effectClock: Layer.succeed(Clock.Clock, clock)
  }
}
