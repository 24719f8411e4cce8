import { test as propTest, fc } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { freezeJson, freezeParts, jsonClone, jsonCopyUnfrozen } from "../src/apiserver/store/JsonValue.ts"

// Every object or array inside a JSON value, so a copy can be checked to share none of them.
const containers = (value: unknown): Array<object> =>
  typeof value !== "object" || value === null ? [] : [value, ...Object.values(value).flatMap(containers)]

// Equal as JSON and as objects: the same own keys in the same order, the same prototypes, the same scalars.
const sameShape = (a: unknown, b: unknown): boolean => {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return Object.is(a, b)
  if (Array.isArray(a) !== Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false
  const keys = Object.keys(a)
  return (
    JSON.stringify(keys) === JSON.stringify(Object.keys(b)) &&
    keys.every((k) => sameShape(Object.getOwnPropertyDescriptor(a, k)?.value, Object.getOwnPropertyDescriptor(b, k)?.value))
  )
}

// JSON documents whose keys include the ones plain assignment mishandles.
const key = fc.oneof(fc.constantFrom("__proto__", "constructor", "toString", "0"), fc.string({ maxLength: 4 }))
const json: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.jsonValue({ maxDepth: 0 }),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(key, tie("value"), { maxKeys: 4, noNullPrototype: true })
  )
})).value

describe("jsonClone", () => {
  propTest.prop([json])("copies a JSON value exactly, sharing no object or array with it", (value) => {
    const copy = jsonClone(freezeJson(value))
    expect(sameShape(copy, value)).toBe(true)
    expect(JSON.stringify(copy)).toBe(JSON.stringify(value))
    const originals = new Set(containers(value))
    for (const part of containers(copy)) {
      expect(originals.has(part)).toBe(false)
      expect(Object.isFrozen(part)).toBe(false)
    }
  })

  it("keeps a key named __proto__ as an own property and the prototype as it was", () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": [1, {"__proto__": null}]}') as Record<string, unknown>
    const copy = jsonClone(value)
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.keys(copy)).toEqual(["__proto__", "a"])
    expect(JSON.stringify(copy)).toBe(JSON.stringify(value))
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
  })
})

describe("jsonCopyUnfrozen", () => {
  propTest.prop([json, json])("copies what is not frozen and shares only the deeply frozen parts", (fresh, stored) => {
    freezeJson(stored)
    const value = { fresh, stored, list: [stored, fresh] }
    const copy = jsonCopyUnfrozen(value)
    expect(sameShape(copy, value)).toBe(true)
    const frozen = new Set(containers(stored))
    const originals = new Set(containers(value))
    for (const part of containers(copy)) expect(originals.has(part) === frozen.has(part)).toBe(true)
  })

  it("copies a shallowly frozen object whose children can still change", () => {
    const child = { n: 1 }
    const value = Object.freeze({ child })
    const copy = jsonCopyUnfrozen({ value })
    expect(copy.value).not.toBe(value)
    expect(copy.value.child).not.toBe(child)
  })

  it("freezes the children of an object someone froze shallowly, and shares it from then on", () => {
    const child = { n: 1 }
    const value = Object.freeze({ child })
    freezeJson({ value })
    expect(Object.isFrozen(child)).toBe(true)
    expect(jsonCopyUnfrozen({ value }).value).toBe(value)
  })

  it("bounds the JSON length of a part someone else froze as of any other part", () => {
    const value = Object.freeze({ text: "é\u0001", list: Object.freeze([1.5, "x"]) })
    const object = { value }
    expect(freezeParts(object)).toBeGreaterThanOrEqual(Buffer.byteLength(JSON.stringify(object)))
    expect(freezeParts(object)).toBe(freezeParts({ value }))
  })
})
