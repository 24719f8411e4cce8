// Objects as the API server returns them, where any field may be missing or of the wrong type: every
// read is total and never mistakes a wrong type, or an inherited property, for a value.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { arrayAt, recordAt, stringAt, valueAt } from "../src/JsonPath.ts"

describe("JsonPath", () => {
  const object = { metadata: { name: "x", labels: { a: "1" }, finalizers: ["f", { name: "g" }] }, spec: { suspend: false, list: [1] }, status: null }

  it("valueAt reads any value, keeps false and null, and the empty path is the value itself", () => {
    expect(valueAt(object, ["spec", "suspend"])).toBe(false)
    expect(valueAt(object, ["status"])).toBeNull()
    expect(valueAt(object, ["spec", "list"])).toEqual([1])
    expect(valueAt(object, ["spec", "missing"])).toBeUndefined()
    expect(valueAt(object, ["status", "conditions"])).toBeUndefined()
    expect(valueAt(object, [])).toBe(object)
  })

  it("a number steps into an array, a string never does, and neither steps into the other's container", () => {
    expect(valueAt(object, ["metadata", "finalizers", 1, "name"])).toBe("g")
    expect(valueAt(object, ["metadata", "finalizers", "0"])).toBeUndefined()
    expect(valueAt(object, ["metadata", "finalizers", "length"])).toBeUndefined()
    expect(valueAt(object, ["metadata", "finalizers", 5])).toBeUndefined()
    expect(valueAt({ 0: "zero" }, [0])).toBeUndefined()
    expect(valueAt("text", ["length"])).toBeUndefined()
  })

  it("reads only own properties: nothing inherited from Object", () => {
    expect(valueAt({}, ["constructor"])).toBeUndefined()
    expect(valueAt({}, ["toString"])).toBeUndefined()
    expect(valueAt({}, ["__proto__"])).toBeUndefined()
    expect(valueAt(JSON.parse('{"__proto__": {"a": 1}}'), ["__proto__", "a"])).toBe(1)
  })

  it("recordAt follows objects and is undefined for an array, null or a scalar", () => {
    expect(recordAt(object, ["metadata", "labels"])).toEqual({ a: "1" })
    expect(recordAt(object, [])).toBe(object)
    expect(recordAt(object, ["metadata", "finalizers"])).toBeUndefined()
    expect(recordAt(object, ["status"])).toBeUndefined()
    expect(recordAt(object, ["metadata", "name"])).toBeUndefined()
    expect(recordAt(undefined, [])).toBeUndefined()
    expect(recordAt([], [])).toBeUndefined()
  })

  it("stringAt and arrayAt refuse other types", () => {
    expect(stringAt(object, ["metadata", "name"])).toBe("x")
    expect(stringAt(object, ["spec", "suspend"])).toBeUndefined()
    expect(arrayAt(object, ["metadata", "finalizers"])).toEqual(["f", { name: "g" }])
    expect(arrayAt(object, ["metadata", "labels"])).toEqual([])
  })

  test.prop([fc.jsonValue(), fc.array(fc.oneof(fc.string({ maxLength: 3 }), fc.nat(3)), { maxLength: 4 }), fc.array(fc.oneof(fc.string({ maxLength: 3 }), fc.nat(3)), { maxLength: 4 })])(
    "reading a path is reading its head, then its tail",
    (value, head, tail) => {
      const inner = valueAt(value, head)
      expect(valueAt(value, [...head, ...tail])).toStrictEqual(inner === undefined && tail.length > 0 ? undefined : valueAt(inner, tail))
    }
  )

  test.prop([fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 1 })), fc.string({ maxLength: 5 })])("a key of a parsed object reads what it holds", (record, key) => {
    const parsed = JSON.parse(JSON.stringify(record)) as unknown
    expect(valueAt(parsed, [key])).toStrictEqual(Object.hasOwn(record, key) ? (parsed as Record<string, unknown>)[key] : undefined)
  })
})
