import { test as propTest, fc } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { mergePatch } from "../src/apiserver/patches/MergePatch.ts"

// Arbitrary JSON documents without nulls inside objects (null means "remove" in a patch).
const json = fc.jsonValue({ maxDepth: 3 })
const jsonObject = fc.dictionary(fc.string({ maxLength: 4 }), json, { maxKeys: 5 })

describe("mergePatch (RFC 7386)", () => {
  // The examples of RFC 7386 appendix A.
  const examples: ReadonlyArray<[unknown, unknown, unknown]> = [
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    [["a", "b"], ["c", "d"], ["c", "d"]],
    [{ a: "b" }, ["c"], ["c"]],
    [{ a: "foo" }, null, null],
    [{ a: "foo" }, "bar", "bar"],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: "b", c: null }, { a: "b" }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }]
  ]
  it.each(examples)("patches %j with %j", (target, patch, result) => {
    expect(mergePatch(target, patch)).toEqual(result)
  })

  it("treats a __proto__ key as data", () => {
    const patched = mergePatch({}, JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>
    expect(Object.getPrototypeOf(patched)).toBe(Object.prototype)
    expect(Object.keys(patched)).toEqual(["__proto__"])
  })

  it("leaves its input unchanged", () => {
    const target = { a: { b: 1 } }
    mergePatch(target, { a: { b: 2, c: 3 } })
    expect(target).toEqual({ a: { b: 1 } })
  })

  propTest.prop([jsonObject])("patching with {} is the identity on objects", (doc) => {
    expect(mergePatch(doc, {})).toEqual(doc)
  })

  propTest.prop([json, jsonObject])("applying the same patch twice is applying it once", (doc, patch) => {
    const once = mergePatch(doc, patch)
    expect(mergePatch(once, patch)).toEqual(once)
  })

  propTest.prop([jsonObject, fc.string({ maxLength: 4 })])("a null removes the key, whatever it held", (doc, key) => {
    expect(Object.hasOwn(mergePatch(doc, { [key]: null }) as object, key)).toBe(false)
  })
})
