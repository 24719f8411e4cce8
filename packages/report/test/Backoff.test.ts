// The wait before a retry: full jitter under a ceiling that doubles per attempt up to the largest backoff, and
// never sooner than Retry-After (itself capped at the largest backoff).
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { backoffCeilingMs, retryDelayMs } from "../src/Backoff.ts"

const settings = fc.record({ backoffMs: fc.integer({ min: 0, max: 10_000 }), maxBackoffMs: fc.integer({ min: 0, max: 60_000 }) })
const unit = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })
const attempt = fc.integer({ min: 0, max: 80 })

describe("retryDelayMs", () => {
  test.prop([attempt, settings, unit])("without Retry-After it is the unit's share of the ceiling, within [0, the largest backoff]", (n, s, u) => {
    const delay = retryDelayMs(n, s, u)
    expect(delay).toBe(u * backoffCeilingMs(n, s))
    expect(delay).toBeGreaterThanOrEqual(0)
    expect(delay).toBeLessThanOrEqual(s.maxBackoffMs)
  })

  test.prop([attempt, settings])("the ceiling starts at the base and doubles with each attempt until it reaches the largest backoff", (n, s) => {
    expect(backoffCeilingMs(0, s)).toBe(Math.min(s.backoffMs, s.maxBackoffMs))
    expect(backoffCeilingMs(n + 1, s)).toBe(Math.min(s.maxBackoffMs, 2 * backoffCeilingMs(n, s)))
  })

  test.prop([attempt, settings, unit, fc.integer({ min: 0, max: 120_000 })])(
    "with Retry-After it is never sooner than it (capped at the largest backoff), nor later than both",
    (n, s, u, after) => {
      const delay = retryDelayMs(n, s, u, after)
      expect(delay).toBeGreaterThanOrEqual(Math.min(after, s.maxBackoffMs))
      expect(delay).toBe(Math.max(u * backoffCeilingMs(n, s), Math.min(after, s.maxBackoffMs)))
      expect(delay).toBeLessThanOrEqual(s.maxBackoffMs)
    }
  )

  it("reads as the defaults say: 0.5 s doubled, at most 30 s", () => {
    const s = { backoffMs: 500, maxBackoffMs: 30_000 }
    expect([0, 1, 2, 5, 6, 7].map((n) => backoffCeilingMs(n, s))).toEqual([500, 1000, 2000, 16_000, 30_000, 30_000])
    expect(retryDelayMs(0, s, 0.5)).toBe(250)
    expect(retryDelayMs(0, s, 0, 1000)).toBe(1000)
    expect(retryDelayMs(3, s, 0.9, 1000)).toBe(3600)
    expect(retryDelayMs(0, s, 0, 600_000)).toBe(30_000)
  })
})
