import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { defaultTimeout, formatTimeout, maxTimeoutSeconds, parseTimeout } from "../src/index.ts"
import { failureOf, successOf } from "./Fixtures.ts"

const seconds = fc.integer({ min: 1, max: maxTimeoutSeconds })
const unitSeconds: Record<string, number> = { "": 1, s: 1, m: 60, h: 3600, d: 86400 }
const grammarString = fc
  .tuple(fc.stringMatching(/^[0-9]{1,12}$/), fc.constantFrom("", "s", "S", "m", "M", "h", "H", "d", "D"))
  .map(([digits, unit]) => ({ text: `${digits}${unit}`, seconds: BigInt(digits) * BigInt(unitSeconds[unit.toLowerCase()] ?? 0) }))

describe("parseTimeout / formatTimeout", () => {
  test.prop([seconds])("round trip: format then parse gives back the seconds", (s) => {
    expect(successOf(parseTimeout(formatTimeout(s)))).toBe(s)
  })

  test.prop([grammarString])("a grammar string parses to digits x unit, or is refused exactly when zero or too long", ({ text, seconds: expected }) => {
    const parsed = parseTimeout(text)
    if (expected === 0n || expected > BigInt(maxTimeoutSeconds)) expect(Result.isFailure(parsed)).toBe(true)
    else expect(successOf(parsed)).toBe(Number(expected))
  })

  test.prop([fc.string({ maxLength: 16 }).filter((s) => !/^[0-9]+[dhmsDHMS]?$/.test(s))])("every string outside the grammar is refused", (text) => {
    expect(failureOf(parseTimeout(text))._tag).toBe("InvalidTimeout")
  })

  it("formats in the largest exact unit", () => {
    expect([86400, 3600, 5400, 90, 61, 172800].map(formatTimeout)).toEqual(["1d", "1h", "90m", "90s", "61s", "2d"])
  })

  it("defaults to 24 hours", () => {
    expect(successOf(parseTimeout(defaultTimeout))).toBe(86400)
  })

  it("accepts a bare integer as seconds and units in either case", () => {
    expect(["3600", "60m", "60M", "1h", "1H", "0001h"].map((t) => successOf(parseTimeout(t)))).toEqual([3600, 3600, 3600, 3600, 3600, 3600])
  })

  const grammar = "expected a whole number followed by an optional unit d, h, m or s (no sign, decimals or spaces)"
  it.each([
    ["1.5h", grammar],
    ["2w", grammar],
    ["-5m", grammar],
    ["+5m", grammar],
    ["", grammar],
    [" 5m", grammar],
    ["5 m", grammar],
    ["h", grammar],
    ["1h30m", grammar],
    ["0", "a job needs at least one second to run"],
    ["0d", "a job needs at least one second to run"],
    ["9223372037s", `it is longer than ${maxTimeoutSeconds} seconds`],
    ["106751992d", `it is longer than ${maxTimeoutSeconds} seconds`],
    ["99999999999999999999999999h", `it is longer than ${maxTimeoutSeconds} seconds`]
  ])("refuses %j: %s", (text, reason) => {
    const problem = failureOf(parseTimeout(text))
    expect(problem.reason).toBe(reason)
    expect(problem.message).toBe(`timeout ${JSON.stringify(text)} is refused: ${reason}`)
    expect(problem.status).toBe(400)
  })

  it("accepts the longest timeout and nothing longer", () => {
    expect(successOf(parseTimeout(`${maxTimeoutSeconds}`))).toBe(maxTimeoutSeconds)
    expect(Result.isFailure(parseTimeout(`${maxTimeoutSeconds + 1}`))).toBe(true)
  })
})
