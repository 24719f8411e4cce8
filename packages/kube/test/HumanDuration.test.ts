// kubectl's human duration against apimachinery's examples (duration_test.go's tables), plus laws.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { humanDuration } from "../src/HumanDuration.ts"

const ms = 1
const s = 1000
const m = 60 * s
const h = 60 * m
const d = 24 * h
const y = 365 * d

// TestHumanDuration and TestHumanDurationBoundaries, in milliseconds (Go's one nanosecond is the
// smallest step below a boundary; here that is one millisecond, except for -2s + 1ns, whose closest
// millisecond is -1999).
const upstream: ReadonlyArray<readonly [number, string]> = [
  [s, "1s"], [70 * s, "70s"], [190 * s, "3m10s"], [70 * m, "70m"], [47 * h, "47h"], [49 * h, "2d1h"],
  [(8 * 24 + 2) * h, "8d"], [367 * 24 * h, "367d"], [(365 * 2 * 24 + 25) * h, "2y1d"], [(365 * 8 * 24 + 2) * h, "8y"],
  [-2 * s, "<invalid>"], [-2 * s + ms, "0s"], [0, "0s"], [s - ms, "0s"], [2 * m - ms, "119s"], [2 * m, "2m"],
  [2 * m + s, "2m1s"], [10 * m - ms, "9m59s"], [10 * m, "10m"], [10 * m + s, "10m"], [3 * h - ms, "179m"], [3 * h, "3h"],
  [3 * h + m, "3h1m"], [8 * h - ms, "7h59m"], [8 * h, "8h"], [8 * h + 59 * m, "8h"], [2 * d - ms, "47h"], [2 * d, "2d"],
  [2 * d + h, "2d1h"], [8 * d - ms, "7d23h"], [8 * d, "8d"], [8 * d + 23 * h, "8d"], [2 * y - ms, "729d"], [2 * y, "2y"],
  [2 * y + 23 * h, "2y"], [2 * y + 23 * h + 59 * m, "2y"], [2 * y + d - ms, "2y"], [2 * y + d, "2y1d"], [3 * y, "3y"],
  [4 * y, "4y"], [5 * y, "5y"], [6 * y, "6y"], [7 * y, "7y"], [8 * y - ms, "7y364d"], [8 * y, "8y"], [8 * y + 364 * d, "8y"],
  [9 * y, "9y"]
]

// The examples kubectl users see in this project's docs.
const ours: ReadonlyArray<readonly [number, string]> = [[65 * m, "65m"], [3 * h + 5 * m, "3h5m"], [2 * d + 3 * h, "2d3h"]]

const unit: Record<string, number> = { s, m, h, d, y }
const valueOf = (text: string): number => [...text.matchAll(/(\d+)([smhdy])/g)].reduce((sum, [, n, u]) => sum + Number(n) * (unit[u ?? "s"] ?? 0), 0)

describe("humanDuration", () => {
  it.each([...upstream, ...ours].map(([t, want]) => [t, want]))("prints %i ms as %s", (t, want) => expect(humanDuration(t)).toBe(want))

  test.prop([fc.integer({ min: 0, max: 20 * y })])("never overstates, and loses less than a third", (t) => {
    const text = humanDuration(t)
    expect(text).toMatch(/^(\d+[smhdy]){1,2}$/)
    expect(valueOf(text)).toBeLessThanOrEqual(t)
    expect(t - valueOf(text)).toBeLessThan(Math.max(s, t / 3))
  })

  test.prop([fc.integer({ min: 0, max: 20 * y }), fc.integer({ min: 0, max: 20 * y })])("a longer duration never prints shorter", (t, u) => {
    const [lo, hi] = t <= u ? [t, u] : [u, t]
    expect(valueOf(humanDuration(lo))).toBeLessThanOrEqual(valueOf(humanDuration(hi)))
  })

  it("is <unknown> without a duration, as kubectl prints a missing timestamp", () => {
    expect(humanDuration(Number.NaN)).toBe("<unknown>")
    expect(humanDuration(Date.parse("") - 0)).toBe("<unknown>")
  })

  test.prop([fc.integer({ min: -10 * y, max: -2 * s })])("is <invalid> for a clock skew of two seconds or more", (t) => {
    expect(humanDuration(t)).toBe("<invalid>")
  })
})
