import { test as propTest, fc } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { freezeJson } from "../src/apiserver/store/JsonValue.ts"
import { jsonText } from "../src/http/JsonText.ts"

// JSON documents whose keys include the ones plain assignment mishandles, some of whose parts are
// frozen (as the store's are) and some of whose members are left out by JSON.stringify.
const key = fc.oneof(fc.constantFrom("__proto__", "constructor", "toJSON", "0", "10", "a\"b"), fc.string({ maxLength: 4 }))
const json: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.jsonValue({ maxDepth: 0 }),
    fc.constantFrom(undefined, -0, Number.NaN),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(key, tie("value"), { maxKeys: 4, noNullPrototype: true }),
    tie("value").map((v) => freezeJson(structuredClone(v)))
  )
})).value

describe("jsonText", () => {
  propTest.prop([json])("writes what JSON.stringify writes, again and again", (value) => {
    const expected = JSON.stringify(value)
    expect(jsonText(value)).toBe(expected)
    // The second time the frozen parts' text is the one kept from the first.
    expect(jsonText(value)).toBe(expected)
  })

  it("writes an object with its own toJSON, or another prototype, as JSON.stringify does", () => {
    const stamp = new Date(0)
    const withToJson = { a: freezeJson({ b: 1 }), toJSON: () => "replaced" }
    expect(jsonText({ at: stamp, nested: { withToJson } })).toBe(JSON.stringify({ at: stamp, nested: { withToJson } }))
  })
})
