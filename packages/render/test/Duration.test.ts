import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { ceilMillis, ceilSeconds, isNegative, parseGoDuration } from "../src/Duration.ts"

const UNITS: ReadonlyArray<readonly [string, bigint]> = [["h", 3_600_000_000_000n], ["m", 60_000_000_000n], ["s", 1_000_000_000n], ["ms", 1_000_000n], ["us", 1_000n], ["ns", 1n]]

describe("Duration", () => {
  it.each([
    ["1h30m", 5_400_000_000_000n],
    ["1.5s", 1_500_000_000n],
    ["-2m", -120_000_000_000n],
    ["+3ms", 3_000_000n],
    ["0", 0n],
    ["1\u00b5s", 1_000n],
    [".5h", 1_800_000_000_000n],
    ["2562047h47m16.854775807s", 9_223_372_036_854_775_807n]
  ])("parses %s", (text, nanos) => {
    expect(parseGoDuration(text)).toBe(nanos)
  })
  it.each(["", "1", "h", "1x", "1.2.3s", "-", ".s", "2562047h47m16.854775808s", `${"1".repeat(65)}s`])("refuses %j", (text) => {
    expect(parseGoDuration(text)).toBeUndefined()
  })
  test.prop([fc.array(fc.tuple(fc.nat(1000), fc.constantFrom(...UNITS)), { minLength: 1, maxLength: 5 })])("sums its components", (parts) => {
    const text = parts.map(([n, [unit]]) => `${n}${unit}`).join("")
    expect(parseGoDuration(text)).toBe(parts.reduce((sum, [n, [, ns]]) => sum + BigInt(n) * ns, 0n))
  })
  test.prop([fc.double({ min: -1e9, max: 1e9, noNaN: true })])("rounds seconds given as numbers up, exactly", (x) => {
    expect(ceilSeconds(x)).toBe(Math.ceil(x) + 0)
    expect(isNegative(x)).toBe(x < 0)
  })
  test.prop([fc.nat(10_000_000), fc.integer({ min: 0, max: 999_999_999 })])("rounds a Go duration up to whole seconds and milliseconds", (s, ns) => {
    const text = `${s}s${ns}ns`
    expect(ceilSeconds(text)).toBe(s + (ns > 0 ? 1 : 0))
    expect(ceilMillis(text)).toBe(s * 1000 + Math.ceil(ns / 1e6))
  })
  it.each([["90s", 90, 90_000], ["1.5s", 2, 1_500], ["0s", 0, 0], ["-1m", -60, -60_000], ["1h", 3_600, 3_600_000]] as const)("keeps %s, a whole number of units, as it is", (text, seconds, millis) => {
    expect(ceilSeconds(text)).toBe(seconds)
    expect(ceilMillis(text)).toBe(millis)
  })
  it("accepts a duration string of up to 64 characters", () => {
    expect(parseGoDuration(`${"0".repeat(62)}1s`)).toBe(1_000_000_000n)
    expect(parseGoDuration(`${"0".repeat(63)}1s`)).toBeUndefined()
  })
  test.prop([fc.stringMatching(/^[0-9]{1,30}$/), fc.constantFrom(...UNITS)])("keeps a fraction's digits below a nanosecond out, as Go does", (digits, [unit, ns]) => {
    expect(parseGoDuration(`0.${digits}${unit}`)).toBe((BigInt(digits) * ns) / 10n ** BigInt(digits.length))
    expect(parseGoDuration(`1.${digits}${unit}`)).toBe(ns + (BigInt(digits) * ns) / 10n ** BigInt(digits.length))
  })
  test.prop([fc.nat(10_000_000), fc.integer({ min: 0, max: 999_999_999 })])("rounds a negative Go duration up, towards zero", (s, ns) => {
    const text = `-${s}s${ns}ns`
    expect(ceilSeconds(text)).toBe(-s + 0)
    expect(ceilMillis(text)).toBe(-(s * 1000 + Math.floor(ns / 1e6)) + 0)
    expect(isNegative(text)).toBe(s > 0 || ns > 0)
  })
  test.prop([fc.integer({ min: -8_000_000_000, max: 8_000_000_000 })])("rounds seconds given as numbers up to whole milliseconds", (eighths) => {
    // Eighths of a second are exact doubles, and so are their thousands.
    expect(ceilMillis(eighths / 8)).toBe(Math.ceil(eighths * 125) + 0)
  })
  it("gives 0, not -0, for a number of seconds just below zero", () => {
    expect(Object.is(ceilSeconds(-0.5), 0)).toBe(true)
    expect(Object.is(ceilMillis(-0.0001), 0)).toBe(true)
  })
  it("refuses a number of seconds from 2^63 ns on, either sign, and accepts every double below it", () => {
    const limit = 2 ** 63 / 1e9
    const below = new Float64Array([limit])
    new BigInt64Array(below.buffer)[0]! -= 1n
    for (const sign of [1, -1]) {
      expect(ceilSeconds(sign * limit)).toBeUndefined()
      expect(ceilMillis(sign * limit)).toBeUndefined()
      expect(isNegative(sign * limit)).toBeUndefined()
      expect(ceilSeconds(sign * below[0]!)).toBe(Math.ceil(sign * below[0]!))
      expect(isNegative(sign * below[0]!)).toBe(sign < 0)
    }
  })
  it("refuses numbers beyond Go's range and non-durations", () => {
    expect(ceilSeconds(1e10)).toBeUndefined()
    expect(ceilSeconds("soon")).toBeUndefined()
    expect(isNegative("-0s")).toBe(false)
  })
})
