// The retry policy: the backoff's law (pure), and retryByCause on TestClock with a seeded Random: what it
// retries, how often, and how long it waits.
import { fc, test } from "@fast-check/vitest"
import { Clock, Effect, Exit, Logger, Random, References } from "effect"
import { describe, expect, it } from "vitest"
import type { ClusterCause } from "../src/ClusterCause.ts"
import { ClusterError } from "../src/ClusterError.ts"
import { backoffCeiling, RETRY_POLICY, type RetryPolicy, retryByCause, retryCall, retryRead, retryWait } from "../src/RetryPolicy.ts"
import { ErrInvalid, ErrRejected, ErrUnreachable } from "../src/StartErrors.ts"
import { runOnTestClock } from "./StartFixture.ts"

const policy = fc.record({
  tries: fc.integer({ min: 1, max: 6 }),
  baseMs: fc.integer({ min: 1, max: 1000 }),
  capMs: fc.integer({ min: 1, max: 20_000 }),
  maxWaitMs: fc.integer({ min: 0, max: 60_000 })
})

const passing = (retryAfterMs?: number): ClusterCause => ({ kind: "Passing", reason: "ServerError", code: 503, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) })

/** Fails with `causes` in turn (then succeeds), noting the Effect Clock at each try. */
const scripted = (causes: ReadonlyArray<ClusterCause | undefined>) => {
  const times: Array<number> = []
  const effect = Effect.gen(function* () {
    times.push(yield* Clock.currentTimeMillis)
    const cause = causes[times.length - 1]
    if (times.length > causes.length) return "ok"
    return yield* Effect.fail({ cause })
  })
  return { times, effect }
}

const run = <A, E>(effect: Effect.Effect<A, E>, seed = 1) => runOnTestClock(effect.pipe(Random.withSeed(seed)))

describe("the backoff", () => {
  test.prop([policy, fc.nat({ max: 20 })])("the ceiling doubles from base and never passes the cap", (p, n) => {
    expect(backoffCeiling(p, n)).toBe(Math.min(p.capMs, p.baseMs * 2 ** n))
    expect(backoffCeiling(p, n + 1)).toBeGreaterThanOrEqual(backoffCeiling(p, n))
  })

  test.prop([policy, fc.nat({ max: 20 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.option(fc.nat({ max: 60_000 }), { nil: undefined })])(
    "full jitter: a whole number of ms from 0 to the ceiling, never under Retry-After",
    (p, n, draw, after) => {
      const wait = retryWait(p, n, draw, after)
      expect(Number.isInteger(wait)).toBe(true)
      expect(wait).toBeGreaterThanOrEqual(after ?? 0)
      expect(wait).toBeLessThanOrEqual(Math.max(backoffCeiling(p, n), after ?? 0))
      if (after === undefined) expect(wait).toBe(Math.floor(draw * (backoffCeiling(p, n) + 1)))
    }
  )

  it("the draw spans the whole range: 0 at the bottom, the ceiling at the top", () => {
    expect(retryWait(RETRY_POLICY, 0, 0, undefined)).toBe(0)
    expect(retryWait(RETRY_POLICY, 0, 0.999999, undefined)).toBe(RETRY_POLICY.baseMs)
    expect(retryWait(RETRY_POLICY, 10, 0.999999, undefined)).toBe(RETRY_POLICY.capMs)
  })
})

describe("retryByCause", () => {
  test.prop([policy, fc.nat({ max: 8 }), fc.integer({ min: 1, max: 1000 })], { numRuns: 30 })(
    "tries a passing failure again up to the policy's tries, each wait within its jitter",
    async (p, failures, seed) => {
      const { times, effect } = scripted(Array.from({ length: failures }, () => passing()))
      const exit = await run(retryByCause(effect, (e) => e.cause, p), seed)
      expect(Exit.isSuccess(exit)).toBe(failures < p.tries)
      expect(times).toHaveLength(Math.min(failures + 1, p.tries))
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeLessThanOrEqual(backoffCeiling(p, i - 1))
    }
  )

  it("never tries a refusal, or a failure without a cause, again", async () => {
    for (const cause of [{ kind: "Refused", reason: "Invalid", code: 422 } as const, undefined]) {
      const { times, effect } = scripted([cause])
      const exit = await run(retryByCause(effect, (e) => e.cause))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(times).toHaveLength(1)
    }
  })

  it("waits at least the Retry-After, and gives up at once on one beyond maxWaitMs", async () => {
    const honoured = scripted([passing(4000), passing(2500)])
    expect(Exit.isSuccess(await run(retryByCause(honoured.effect, (e) => e.cause)))).toBe(true)
    expect(honoured.times[1]! - honoured.times[0]!).toBeGreaterThanOrEqual(4000)
    expect(honoured.times[2]! - honoured.times[1]!).toBeGreaterThanOrEqual(2500)
    const tooLong = scripted([passing(RETRY_POLICY.maxWaitMs + 1)])
    expect(Exit.isFailure(await run(retryByCause(tooLong.effect, (e) => e.cause)))).toBe(true)
    expect(tooLong.times).toHaveLength(1)
    const justRight = scripted([passing(RETRY_POLICY.maxWaitMs)])
    expect(Exit.isSuccess(await run(retryByCause(justRight.effect, (e) => e.cause)))).toBe(true)
  })

  it("draws its waits from Effect's Random: the same seed waits the same", async () => {
    const waits = async (seed: number) => {
      const { times, effect } = scripted([passing(), passing(), passing()])
      await run(retryByCause(effect, (e) => e.cause), seed)
      return times
    }
    expect(await waits(5)).toEqual(await waits(5))
    const spread = new Set(await Promise.all([1, 2, 3, 4, 5, 6].map(async (s) => JSON.stringify(await waits(s)))))
    expect(spread.size).toBeGreaterThan(1)
  })

  it("retryCall retries a 503 but returns a Conflict at once (its fresh read is the caller's)", async () => {
    const calls = (reason: "ServerError" | "Conflict", code: number) => {
      let n = 0
      const effect = Effect.suspend(() => (++n === 1 ? Effect.fail(new ClusterError({ reason, call: "x", status: { code, reason, message: "", causes: [] } })) : Effect.succeed(n)))
      return { effect, count: () => n }
    }
    const busy = calls("ServerError", 503)
    expect(Exit.isSuccess(await run(retryCall(busy.effect)))).toBe(true)
    expect(busy.count()).toBe(2)
    const moved = calls("Conflict", 409)
    expect(Exit.isFailure(await run(retryCall(moved.effect)))).toBe(true)
    expect(moved.count()).toBe(1)
  })

  it("retryRead retries a StartError whose cause passes, not a refusal or ErrInvalid", async () => {
    const count = async (error: ErrUnreachable | ErrRejected | ErrInvalid, p: RetryPolicy = RETRY_POLICY) => {
      let n = 0
      await run(retryRead(Effect.suspend(() => (n++, Effect.fail(error))), p))
      return n
    }
    expect(await count(new ErrUnreachable({ reasons: [], cause: passing() }))).toBe(RETRY_POLICY.tries)
    expect(await count(new ErrRejected({ reasons: [], cause: { kind: "Refused", reason: "Forbidden", code: 403 } }))).toBe(1)
    expect(await count(new ErrInvalid({ reasons: [] }))).toBe(1)
  })
})

describe("retryByCause's log", () => {
  it("says, at Debug, each passing fault it tries again: its reason, its code, and the wait", async () => {
    const lines: Array<unknown> = []
    const logger = Logger.make((options) => void lines.push(options.message))
    const { effect } = scripted([passing(1500), { kind: "Passing", reason: "Unanswered" }])
    const program = retryByCause(effect, (e) => e.cause).pipe(Effect.provideService(References.MinimumLogLevel, "Debug"), Effect.provide(Logger.layer([logger])))
    expect(Exit.isSuccess(await run(program))).toBe(true)
    expect(lines).toHaveLength(2)
    expect(lines[0]).toEqual(["passing fault (ServerError 503): trying again in 1500 ms"])
    expect(String(lines[1])).toMatch(/^passing fault \(Unanswered\): trying again in \d+ ms$/)
  })
})
