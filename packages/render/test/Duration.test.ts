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
  it("refuses numbers beyond Go's range and non-durations", () => {
    expect(ceilSeconds(1e10)).toBeUndefined()
    expect(ceilSeconds("soon")).toBeUndefined()
    expect(isNegative("-0s")).toBe(false)
  })
})
