// kubectl's flag durations as dispatch reads them: a whole number with one unit (ms, s, m, h), or bare seconds.
import { fc, test as property } from "@fast-check/vitest"
import { describe, expect, test } from "vitest"
import { parseDuration } from "../src/FlagDuration.ts"

describe("parseDuration", () => {
  test("reads each unit, and a bare number as seconds", () => {
    expect([parseDuration("500ms"), parseDuration("90s"), parseDuration("2m"), parseDuration("1h"), parseDuration("30"), parseDuration("0")]).toEqual([
      500, 90_000, 120_000, 3_600_000, 30_000, 0
    ])
  })

  test("refuses what is not one whole number with one unit", () => {
    for (const text of ["", "s", "-1s", "1.5s", "1h30m", "1d", " 1s", "1s ", "1S", "1234567890s"]) expect(parseDuration(text)).toBeUndefined()
  })

  property.prop([fc.integer({ min: 0, max: 999_999_999 }), fc.constantFrom(["ms", 1], ["s", 1000], ["m", 60_000], ["h", 3_600_000])])(
    "is the number times its unit's milliseconds",
    (n, [unit, ms]) => {
      expect(parseDuration(`${n}${unit}`)).toBe(n * ms)
    }
  )
})
