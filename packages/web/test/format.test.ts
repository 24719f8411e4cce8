// How the page writes times, durations and metric values.
import { test as propTest } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { formatAgo, formatMetric, formatSeconds, formatTime, formatValue } from "../app/format.ts"

describe("formatting", () => {
  it("writes a time in UTC to the second, and leaves what is no time as given", () => {
    expect(formatTime("2026-11-30T12:00:05.123Z")).toBe("2026-11-30 12:00:05 UTC")
    expect(formatTime("2026-11-30T13:00:05+01:00")).toBe("2026-11-30 12:00:05 UTC")
    expect(formatTime("yesterday")).toBe("yesterday")
    expect(formatTime(undefined)).toBe("")
  })

  it("says how long ago in the largest whole unit", () => {
    const now = Date.parse("2026-11-30T12:00:00Z")
    expect(formatAgo("2026-11-30T11:59:58Z", now)).toBe("just now")
    expect(formatAgo("2026-11-30T11:59:18Z", now)).toBe("42 s ago")
    expect(formatAgo("2026-11-30T11:55:00Z", now)).toBe("5 min ago")
    expect(formatAgo("2026-11-30T09:00:00Z", now)).toBe("3 h ago")
    expect(formatAgo("2026-11-28T12:00:00Z", now)).toBe("2 d ago")
    expect(formatAgo("not a time", now)).toBe("")
  })

  propTest.prop([fc.integer({ min: 0, max: 10 ** 9 })])("a duration's parts add up to its seconds", (seconds) => {
    const text = formatSeconds(seconds)
    const units: Record<string, number> = { d: 86_400, h: 3600, min: 60, s: 1 }
    const total = [...text.matchAll(/(\d+) (d|h|min|s)\b/g)].reduce((sum, [, n, unit]) => sum + Number(n) * (units[unit ?? "s"] ?? 0), 0)
    expect(total).toBe(seconds)
  })

  it("writes durations largest units first, zero parts left out", () => {
    expect(formatSeconds(0)).toBe("0 s")
    expect(formatSeconds(3600)).toBe("1 h")
    expect(formatSeconds(3723)).toBe("1 h 2 min 3 s")
    expect(formatSeconds(90_061)).toBe("1 d 1 h 1 min 1 s")
  })

  propTest.prop([fc.double({ noNaN: true, noDefaultInfinity: true })])("a finite metric value reads back within six significant digits", (value) => {
    const read = Number(formatMetric(value))
    expect(Math.abs(read - value)).toBeLessThanOrEqual(Math.abs(value) * 1e-4 + Number.MIN_VALUE)
  })

  it("writes metric values briefly and the non-finite ones as the API spells them", () => {
    expect(formatMetric(3)).toBe("3")
    expect(formatMetric(0.123456789)).toBe("0.123457")
    expect(formatMetric(1.5e-7)).toBe("1.5e-7")
    expect(formatMetric(1.7976931348623157e308)).toBe("1.79769e+308")
    expect(formatMetric("nan")).toBe("nan")
    expect(formatMetric("-inf")).toBe("-inf")
  })

  it("writes any value on one line, strings unquoted", () => {
    expect(formatValue("adam")).toBe("adam")
    expect(formatValue(5)).toBe("5")
    expect(formatValue({ a: [1, 2] })).toBe('{"a":[1,2]}')
  })
})
