import { test as propTest } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, test } from "vitest"
import { retryCapMs, retryDelayMs, withinBudget, type RetryPolicy } from "../src/index.ts"

const policy = fc
  .record({ baseMs: fc.integer({ min: 1, max: 10_000 }), maxMs: fc.integer({ min: 1, max: 10_000_000 }), maxAttempts: fc.integer({ min: 1, max: 50 }), maxElapsedMs: fc.integer({ min: 1, max: 10 ** 9 }) })
  .filter((p) => p.baseMs <= p.maxMs)
const draw = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })
const attempt = fc.integer({ min: 1, max: 10_000 })

describe("the retry policy", () => {
  propTest.prop([policy, attempt])("caps delays between the first cap and the ceiling, never shrinking", (p, n) => {
    expect(retryCapMs(p, n)).toBeGreaterThanOrEqual(p.baseMs)
    expect(retryCapMs(p, n)).toBeLessThanOrEqual(p.maxMs)
    expect(retryCapMs(p, n + 1)).toBeGreaterThanOrEqual(retryCapMs(p, n))
  })
  test("doubles from the first cap", () => {
    const p: RetryPolicy = { baseMs: 100, maxMs: 1000, maxAttempts: 5, maxElapsedMs: 1000 }
    expect([1, 2, 3, 4, 5].map((n) => retryCapMs(p, n))).toEqual([100, 200, 400, 800, 1000])
  })
  propTest.prop([policy, attempt, draw, fc.option(fc.integer({ min: 0, max: 10 ** 7 }), { nil: undefined })])(
    "draws below the cap (full jitter), never before Retry-After",
    (p, n, d, retryAfter) => {
      const delay = retryDelayMs(p, n, d, retryAfter)
      expect(Number.isInteger(delay)).toBe(true)
      expect(delay).toBeGreaterThanOrEqual(retryAfter ?? 0)
      expect(delay).toBeLessThanOrEqual(Math.max(retryCapMs(p, n), retryAfter ?? 0))
      if (retryAfter === undefined) expect(delay).toBe(Math.floor(d * retryCapMs(p, n)))
    }
  )
  test("full jitter spans the cap; a larger draw waits longer", () => {
    const p: RetryPolicy = { baseMs: 1000, maxMs: 8000, maxAttempts: 5, maxElapsedMs: 1000 }
    expect(retryDelayMs(p, 3, 0)).toBe(0)
    expect(retryDelayMs(p, 3, 0.5)).toBe(2000)
    expect(retryDelayMs(p, 3, 0.999)).toBe(3996)
    expect(retryDelayMs(p, 3, 0.5, 2500)).toBe(2500)
    expect(retryDelayMs(p, 3, 0.9, 2500)).toBe(3600)
  })
  propTest.prop([policy, fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 10 ** 9 }), fc.integer({ min: 0, max: 10 ** 9 })])(
    "allows another attempt exactly while both the attempts and the time last",
    (p, attempts, first, elapsed) => {
      expect(withinBudget(p, attempts, first, first + elapsed)).toBe(attempts < p.maxAttempts && elapsed < p.maxElapsedMs)
    }
  )
})

test("the budget ends exactly at its last attempt and its last millisecond", () => {
  const p: RetryPolicy = { baseMs: 1, maxMs: 1, maxAttempts: 3, maxElapsedMs: 1000 }
  expect([withinBudget(p, 2, 0, 999), withinBudget(p, 3, 0, 0), withinBudget(p, 2, 0, 1000)]).toEqual([true, false, false])
})
