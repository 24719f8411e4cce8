// parseAnswer is JSON.parse with metadata.managedFields parsed on first read: on every text it must give
// what JSON.parse gives (value, key order, error), whatever the strings inside hold.
import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { parseAnswer } from "../src/KubeObjects.ts"

// Strings that would fool a scanner that does not know JSON's strings: brackets, quotes, backslashes and
// the key itself inside values and keys.
const tricky = fc.oneof(
  fc.string(),
  fc.constantFrom('"managedFields":[', '\\"managedFields\\":[', "]", "[", "}", "{", '"', "\\", '\\"', "managedFields", "\u0000")
)
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, fc.jsonValue({ maxDepth: 1 }), tricky, fc.array(tie("value"), { maxLength: 3 }), fc.dictionary(tricky, tie("value"), { maxKeys: 3 }))
})).value

const managedFields = fc.array(fc.record({ manager: tricky, fieldsV1: fc.dictionary(tricky, json, { maxKeys: 3 }) }), { maxLength: 3 })

// Compares values and key order (JSON.stringify reads the deferred field through its getter).
const same = (text: string): void => {
  const parsed = parseAnswer(text)
  expect(JSON.stringify(parsed)).toBe(JSON.stringify(JSON.parse(text)))
  expect(parsed).toEqual(JSON.parse(text))
}

describe("parseAnswer", () => {
  test.prop([fc.dictionary(tricky, json, { maxKeys: 3 }), fc.dictionary(tricky, json, { maxKeys: 3 }), managedFields, json])(
    "gives what JSON.parse gives for any object with metadata.managedFields",
    (before, metaRest, fields, spec) => {
      same(JSON.stringify({ ...before, apiVersion: "v1", kind: "Thing", metadata: { name: "a", ...metaRest, managedFields: fields }, spec }))
    }
  )

  test.prop([json])("gives what JSON.parse gives for any JSON text", (value) => {
    same(JSON.stringify(value))
  })

  it("gives what JSON.parse gives for a list, a managedFields elsewhere, and duplicate keys", () => {
    same(JSON.stringify({ kind: "List", metadata: {}, items: [{ metadata: { name: "a", managedFields: [{ manager: "m" }] } }] }))
    same(JSON.stringify({ kind: "T", spec: { managedFields: [1] }, metadata: { name: "a", managedFields: [2] } }))
    same('{"metadata":{"managedFields":[1],"managedFields":[2]}}')
    same('{"metadata":{"a\\"managedFields":[1],"managedFields":[2]}}')
  })

  it("throws what JSON.parse throws on a text that is not JSON", () => {
    for (const text of ['{"metadata":{"managedFields":[1}}', '{"metadata":{"managedFields":[', "<html>", '{"metadata":{"managedFields":[]},']) {
      expect(() => parseAnswer(text)).toThrow(SyntaxError)
    }
  })

  it("parses managedFields once, when it is first read, and keeps a value written over it", () => {
    const parsed = parseAnswer('{"apiVersion":"v1","kind":"T","metadata":{"name":"a","managedFields":[{"manager":"m"}],"uid":"u"}}') as { metadata: Record<string, unknown> }
    expect(Object.getOwnPropertyDescriptor(parsed.metadata, "managedFields")?.get).toBeDefined()
    const first = parsed.metadata["managedFields"]
    expect(first).toEqual([{ manager: "m" }])
    expect(parsed.metadata["managedFields"]).toBe(first)
    expect(Object.keys(parsed.metadata)).toEqual(["name", "managedFields", "uid"])
    parsed.metadata["managedFields"] = []
    expect(parsed.metadata["managedFields"]).toEqual([])
    const frozen = parseAnswer('{"metadata":{"managedFields":[1]}}') as { metadata: Record<string, unknown> }
    Object.freeze(frozen.metadata)
    expect(frozen.metadata["managedFields"]).toEqual([1])
  })
})
