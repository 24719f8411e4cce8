import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { coerceValue, maxJsonDepth, valueDepth } from "../src/index.ts"
import { failureOf, successOf } from "./Fixtures.ts"

describe("coerceValue", () => {
  test.prop([fc.string()])("a string is kept as it is", (raw) => {
    expect(successOf(coerceValue("string", raw))).toBe(raw)
  })

  test.prop([fc.maxSafeInteger()])("every safe integer survives its decimal text", (n) => {
    expect(successOf(coerceValue("integer", String(n)))).toBe(n)
  })

  test.prop([fc.double({ noNaN: true, noDefaultInfinity: true })])("every finite double survives its text", (x) => {
    // String(-0) is "0", so zero's sign is the one thing the text itself does not carry.
    expect(successOf(coerceValue("float", String(x))) === x).toBe(true)
  })

  test.prop([fc.boolean(), fc.array(fc.boolean(), { minLength: 4, maxLength: 5 })])("booleans ignore case", (b, upper) => {
    const text = [...String(b)].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join("")
    expect(successOf(coerceValue("boolean", text))).toBe(b)
  })

  test.prop([fc.array(fc.jsonValue(), { maxLength: 5 })])("a JSON list is a list", (list) => {
    expect(successOf(coerceValue("list", JSON.stringify(list)))).toEqual(JSON.parse(JSON.stringify(list)))
  })

  test.prop([fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 5 })])("a JSON object is a mapping", (mapping) => {
    expect(successOf(coerceValue("mapping", JSON.stringify(mapping)))).toEqual(JSON.parse(JSON.stringify(mapping)))
  })

  it.each([
    ["integer", "1.5", "it is not a whole number"],
    ["integer", "", "it is not a whole number"],
    ["integer", "9007199254740992", "it is outside the integers JSON carries exactly (|n| <= 2^53 - 1)"],
    ["float", "nan", "it is not a decimal number"],
    ["float", "inf", "it is not a decimal number"],
    ["float", "1e400", "it is too large to be a finite float"],
    ["float", "1,5", "it is not a decimal number"],
    ["boolean", "yes", 'it is neither "true" nor "false"'],
    ["boolean", "1", 'it is neither "true" nor "false"'],
    ["list", "[1,", "it is not valid JSON"],
    ["list", "{}", "it is not a JSON list"],
    ["mapping", "[]", "it is not a JSON object"],
    ["mapping", "null", "it is not a JSON object"]
  ] as const)("refuses %s %j: %s", (type, raw, reason) => {
    expect(failureOf(coerceValue(type, raw))).toBe(reason)
  })

  it("accepts the decimal forms Python's float() does", () => {
    expect(["1", "-2.5", ".5", "5.", "1e3", "+1E-2"].map((raw) => Result.getOrUndefined(coerceValue("float", raw)))).toEqual([1, -2.5, 0.5, 5, 1000, 0.01])
  })

  const nestedList = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`
  const nestedMapping = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`

  test.prop([fc.integer({ min: 0, max: 200 }), fc.constantFrom("list", "mapping")])(
    "a list or mapping is parsed only as deep as the bound: deeper is refused, whatever its size",
    (depth, type) => {
      const raw = type === "list" ? nestedList(Math.max(depth, 1)) : nestedMapping(Math.max(depth, 1))
      const coerced = coerceValue(type, raw)
      expect(valueDepth(type, raw)).toBe(Math.min(Math.max(depth, 1), maxJsonDepth + 1))
      if (Math.max(depth, 1) <= maxJsonDepth) expect(Result.isSuccess(coerced)).toBe(true)
      else expect(failureOf(coerced)).toBe(`it nests deeper than ${maxJsonDepth} levels`)
    }
  )

  it("parses a list or mapping exactly as deep as the bound, and refuses one level more", () => {
    expect(Result.isSuccess(coerceValue("list", nestedList(maxJsonDepth)))).toBe(true)
    expect(Result.isSuccess(coerceValue("mapping", nestedMapping(maxJsonDepth)))).toBe(true)
    expect(failureOf(coerceValue("list", nestedList(maxJsonDepth + 1)))).toBe(`it nests deeper than ${maxJsonDepth} levels`)
    expect(failureOf(coerceValue("mapping", nestedMapping(maxJsonDepth + 1)))).toBe(`it nests deeper than ${maxJsonDepth} levels`)
  })

  it("counts no nesting for types that parse no JSON, and a million levels in one pass", () => {
    expect(valueDepth("string", nestedList(10))).toBe(0)
    expect(failureOf(coerceValue("list", nestedList(1_000_000)))).toBe(`it nests deeper than ${maxJsonDepth} levels`)
    expect(failureOf(coerceValue("mapping", nestedMapping(1_000_000)))).toBe(`it nests deeper than ${maxJsonDepth} levels`)
  })
})
