import fc from "fast-check"
import { test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { cloneJson, jsonEqual, isJsonTree } from "../src/Json.ts"
import { firstDifference, pathText } from "../src/JsonDifference.ts"

const shuffleKeys = (u: unknown): unknown => {
  if (Array.isArray(u)) return u.map(shuffleKeys)
  if (typeof u === "object" && u !== null) {
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(u).reverse()) Object.defineProperty(out, k, { value: shuffleKeys((u as Record<string, unknown>)[k]), enumerable: true, writable: true, configurable: true })
    return out
  }
  return u
}

describe("Json", () => {
  test.prop([fc.jsonValue()])("cloneJson returns an equal copy with the same key order", (v) => {
    const copy = cloneJson(v)
    expect(copy).toEqual(v)
    expect(JSON.stringify(copy)).toBe(JSON.stringify(v))
  })
  test.prop([fc.jsonValue()])("jsonEqual is reflexive and ignores key order", (v) => {
    expect(jsonEqual(v, structuredClone(v))).toBe(true)
    expect(jsonEqual(v, shuffleKeys(v))).toBe(true)
  })
  test.prop([fc.jsonValue(), fc.jsonValue()])("jsonEqual agrees with comparing sorted serialisations, and is symmetric", (a, b) => {
    const canonical = (u: unknown): string => JSON.stringify(u, (_k, v: unknown) => (typeof v === "object" && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : 1))) : v))
    expect(jsonEqual(a, b)).toBe(canonical(a) === canonical(b))
    expect(jsonEqual(a, b)).toBe(jsonEqual(b, a))
  })
  it("refuses what is not a JSON tree instead of looping or throwing", () => {
    const cyclic: Record<string, unknown> = {}
    cyclic["self"] = cyclic
    expect(cloneJson(cyclic)).toBeUndefined()
    expect(jsonEqual(cyclic, cyclic)).toBe(true)
    const other: Record<string, unknown> = {}
    other["self"] = other
    expect(jsonEqual(cyclic, other)).toBe(false)
    expect(cloneJson({ a: Number.NaN })).toBeUndefined()
    expect(cloneJson({ a: new Date(0) })).toBeUndefined()
    expect(cloneJson({ a: undefined })).toBeUndefined()
    // A hole in an array is no JSON value either (JSON.stringify would write null there).
    // eslint-disable-next-line no-sparse-arrays
    expect(cloneJson([1, , 3])).toBeUndefined()
  })
  it("tells apart unequal scalars and arrays of equal length, at any depth", () => {
    // The properties draw such pairs too, but not in every short run.
    expect(jsonEqual(1, 2)).toBe(false)
    expect(jsonEqual("a", "b")).toBe(false)
    expect(jsonEqual(true, false)).toBe(false)
    expect(jsonEqual({ a: 1 }, { a: 2 })).toBe(false)
    expect(jsonEqual([1, 2], [1, 3])).toBe(false)
    expect(jsonEqual([0], [1])).toBe(false)
    expect(jsonEqual({ a: [[1]] }, { a: [[2]] })).toBe(false)
    expect(jsonEqual([1, [2]], [1, [2]])).toBe(true)
    expect(jsonEqual({}, 0)).toBe(false)
    expect(jsonEqual({}, [])).toBe(false)
    // A key the other object only inherits is not one it has.
    expect(jsonEqual(JSON.parse('{"__proto__":{}}'), { b: 1 })).toBe(false)
  })
  it("tells apart objects of as many keys that name different ones", () => {
    // fc.jsonValue() rarely draws two objects of the same size with other keys.
    expect(jsonEqual({ a: 1 }, { b: 1 })).toBe(false)
    expect(jsonEqual({ x: { a: null } }, { x: { b: null } })).toBe(false)
  })
  it("handles nesting far deeper than the call stack", () => {
    let deep: unknown = 1
    for (let i = 0; i < 200_000; i++) deep = [deep]
    expect(jsonEqual(deep, cloneJson(deep))).toBe(true)
  })
  it("keeps a __proto__ key as data", () => {
    const v = JSON.parse('{"__proto__":{"x":1}}') as unknown
    const copy = cloneJson(v) as Record<string, unknown>
    expect(Object.keys(copy)).toEqual(["__proto__"])
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    // An ordinary own field, which the copy's users may change or delete like any other.
    expect(Object.getOwnPropertyDescriptor(copy, "__proto__")).toEqual({ value: { x: 1 }, enumerable: true, writable: true, configurable: true })
  })
  it("copies an object without a prototype, and refuses an array met twice", () => {
    expect(cloneJson(Object.assign(Object.create(null) as object, { a: 1 }))).toEqual({ a: 1 })
    const shared = [1]
    expect(cloneJson({ a: shared, b: shared })).toBeUndefined()
    const cyclic: Array<unknown> = []
    cyclic.push(cyclic)
    expect(cloneJson(cyclic)).toBeUndefined()
  })
})

describe("firstDifference", () => {
  const at = (u: unknown, segments: ReadonlyArray<string | number>): unknown =>
    segments.reduce<unknown>((v, s) => (typeof v === "object" && v !== null && Object.hasOwn(v, s) ? (v as Record<string | number, unknown>)[s] : undefined), u)
  const isContainer = (u: unknown): boolean => typeof u === "object" && u !== null

  test.prop([fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3 })])("is undefined exactly when the values are equal", (a, b) => {
    expect(firstDifference(a, b) === undefined).toBe(jsonEqual(a, b))
    expect(firstDifference(a, shuffleKeys(a))).toBeUndefined()
  })

  test.prop([fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3 })])(
    "names a path where the values differ, at a leaf: not two objects, nor two arrays where one item is missing",
    (a, b) => {
      const d = firstDifference(a, b)
      if (d === undefined) return
      expect(d.left).toBe(at(a, d.segments))
      expect(d.right).toBe(at(b, d.segments))
      expect(jsonEqual(d.left, d.right)).toBe(false)
      const sameKind = isContainer(d.left) && isContainer(d.right) && Array.isArray(d.left) === Array.isArray(d.right)
      expect(sameKind).toBe(false)
    }
  )

  it("walks in document order: the left's keys as written, then keys only the right has, sorted", () => {
    expect(firstDifference({ z: 1, a: 1 }, { a: 2, z: 2 })).toEqual({ segments: ["z"], left: 1, right: 2 })
    expect(firstDifference({ a: { b: [1, 2] }, c: "x" }, { a: { b: [1, 3] }, c: "y" })).toEqual({ segments: ["a", "b", 1], left: 2, right: 3 })
    expect(firstDifference({ k: 1 }, { k: 1, z: 1, y: 2 })).toEqual({ segments: ["y"], left: undefined, right: 2 })
    expect(firstDifference({ k: 1, m: 1 }, { k: 1 })).toEqual({ segments: ["m"], left: 1, right: undefined })
  })

  it("names the first item one array has and the other lacks", () => {
    expect(firstDifference([1, 2], [1, 2, 3, 4])).toEqual({ segments: [2], left: undefined, right: 3 })
    expect(firstDifference([1, 2, 3], [1, 2])).toEqual({ segments: [2], left: 3, right: undefined })
    expect(firstDifference({ a: [] }, { a: [null] })).toEqual({ segments: ["a", 0], left: undefined, right: null })
  })

  it("stops at a node reached twice, so a cycle or a shared node ends the walk", () => {
    const left: Record<string, unknown> = { n: 1 }
    left["self"] = left
    const right: Record<string, unknown> = { n: 1 }
    right["self"] = right
    expect(firstDifference(left, right)?.segments).toEqual(["self"])
    const shared = { x: 1 }
    expect(firstDifference({ a: shared, b: shared }, { a: { x: 1 }, b: { x: 1 } })?.segments).toEqual(["b"])
  })

  it("writes plain keys of up to 64 characters after a dot, and quotes the rest, cut at 64 characters", () => {
    const plain = `_${"a9".repeat(31)}Z`
    expect(plain.length).toBe(64)
    expect(pathText([plain])).toBe(`.${plain}`)
    expect(pathText([`${plain}x`])).toBe(`[${JSON.stringify(`${plain}...`)}]`)
    for (const odd of ["1a", "a-b", "", "a.b", " a", "a "]) expect(pathText([odd])).toBe(`[${JSON.stringify(odd)}]`)
    expect(pathText(["x", 0, "y"])).toBe(".x[0].y")
    const odd64 = "-".repeat(64)
    expect(pathText([odd64])).toBe(`[${JSON.stringify(odd64)}]`)
    expect(pathText([`${odd64}-`])).toBe(`[${JSON.stringify(`${odd64}...`)}]`)
  })

  it("writes the path as a field reference", () => {
    const d = firstDifference({ env: [{ name: "A", value: "1" }], "odd key": 1 }, { env: [{ name: "A", value: "2" }], "odd key": 1 })
    expect(d && pathText(d.segments)).toBe(".env[0].value")
    expect(pathText(["odd key", 2])).toBe('["odd key"][2]')
  })
})

describe("isJsonTree and cloneJson agree", () => {
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
})
