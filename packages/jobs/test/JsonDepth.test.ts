import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { jsonDepth, maxJsonDepth, valueNesting } from "../src/index.ts"

const wrapped = (depth: number, inner: unknown): unknown => {
  let value = inner
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { k: value }
  return value
}

describe("jsonDepth and valueNesting", () => {
  test.prop([fc.integer({ min: 0, max: 300 }), fc.oneof(fc.string(), fc.integer(), fc.constant(null))])(
    "both count the nesting of arrays and objects, the text's count never seeing brackets inside strings",
    (depth, leaf) => {
      const value = wrapped(depth, leaf)
      expect(jsonDepth(JSON.stringify(value))).toBe(depth)
      expect(valueNesting(value)).toBe(depth)
    }
  )

  test.prop([fc.jsonValue()])("the text and the parsed value agree on every JSON value", (value) => {
    expect(jsonDepth(JSON.stringify(value))).toBe(valueNesting(value))
  })

  test.prop([fc.integer({ min: 1, max: 200 }), fc.integer({ min: 0, max: 100 })])("each stops one past its limit, however deep the value", (depth, limit) => {
    const value = wrapped(depth, 1)
    expect(jsonDepth(JSON.stringify(value), limit)).toBe(Math.min(depth, limit + 1))
    expect(valueNesting(value, limit)).toBe(Math.min(depth, limit + 1))
  })

  it("reads escaped quotes and backslashes inside strings as text, and siblings at the depth they are", () => {
    expect(jsonDepth(String.raw`["\"[[[", "\\", [1]]`)).toBe(2)
    expect(jsonDepth(`[{"a": [1]}, [[2]], 3]`)).toBe(3)
    expect(valueNesting([{ a: [1] }, [[2]], 3])).toBe(3)
    expect(valueNesting("[[[")).toBe(0)
    // A shallow sibling walked after a deep one does not lower the count, in either order.
    expect([valueNesting([[], [[1]]]), valueNesting([[[1]], []]), valueNesting({ a: {}, b: { c: [1] } })]).toEqual([3, 3, 3])
    expect(maxJsonDepth).toBe(64)
  })
})
