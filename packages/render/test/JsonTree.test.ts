import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { cloneJson, isJsonTree } from "../src/Json.ts"

// isJsonTree answers whether cloneJson copies, on anything.
const agrees = (u: unknown): void => {
  expect(isJsonTree(u)).toBe(cloneJson(u) !== undefined)
}

describe("isJsonTree", () => {
  test.prop([fc.jsonValue()])("holds for JSON data", (v) => {
    expect(isJsonTree(v)).toBe(true)
  })

  test.prop([fc.anything({ withNullPrototype: true, withMap: true, withDate: true, withSparseArray: true, withBoxedValues: true, withTypedArray: true })], { numRuns: 500 })(
    "answers as cloneJson does on anything",
    (u) => {
      agrees(u)
    }
  )

  it("refuses what cloneJson refuses: shared nodes, cycles, non-finite numbers, undefined, holes, class instances", () => {
    const shared = { x: 1 }
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic["self"] = cyclic
    const inArray: Array<unknown> = []
    inArray.push(inArray)
    for (const u of [{ a: shared, b: shared }, [shared, shared], cyclic, inArray, { a: Number.NaN }, [Infinity], { a: undefined }, [1, , 3], { d: new Date(0) }, () => 1, Symbol("s"), 1n]) {
      expect(isJsonTree(u)).toBe(false)
      agrees(u)
    }
    const nullProto = Object.assign(Object.create(null) as object, { a: [1, "x", null, true] })
    expect(isJsonTree(nullProto)).toBe(true)
    agrees(nullProto)
  })

  it("handles nesting far deeper than the call stack", () => {
    let deep: unknown = 0
    for (let i = 0; i < 100_000; i++) deep = i % 2 === 0 ? [deep] : { a: deep }
    expect(isJsonTree(deep)).toBe(true)
  })
})
