// How deeply JSON nests: measured on values without recursion, on JSON text exactly, and on YAML text
// from above (so the YAML parser is never handed more than the limit).
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { parse, stringify } from "yaml"
import { maxNestingDepth, nestingDepth, nestsTooDeeply } from "../src/apiserver/validation/Nesting.ts"
import { jsonTextDepth, yamlTextDepth } from "../src/http/BodyNesting.ts"

// The obvious recursive definition, for values shallow enough to recurse on.
const reference = (value: unknown): number =>
  typeof value !== "object" || value === null ? 0 : 1 + Math.max(0, ...Object.values(value).map(reference))

describe("nesting depth", () => {
  it("of a value is the recursive definition's, and stops counting past the limit", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat({ max: 6 }), (value, limit) => {
        expect(nestingDepth(value)).toBe(reference(value))
        const capped = nestingDepth(value, limit)
        expect(capped > limit).toBe(reference(value) > limit)
      })
    )
  })

  it("of JSON text is that of the value it encodes", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonTextDepth(JSON.stringify(value))).toBe(nestingDepth(value))
      })
    )
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonTextDepth(JSON.stringify(value, null, 2))).toBe(nestingDepth(value))
      })
    )
  })

  it("of YAML text is at least that of the value it encodes", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, flow) => {
        const text = stringify(value, flow ? { collectionStyle: "flow" } : {})
        expect(yamlTextDepth(text)).toBeGreaterThanOrEqual(nestingDepth(parse(text)))
      })
    )
    // Compact entries open levels a deeper line nests under (block: `- - "":` then a more indented key).
    for (const value of [[[{ "": { "": false } }], false], [[[{ a: { b: { c: [1] } } }]]]]) {
      expect(yamlTextDepth(stringify(value))).toBeGreaterThanOrEqual(nestingDepth(value))
    }
    expect(yamlTextDepth(`${"- ".repeat(40)}1`)).toBeGreaterThanOrEqual(40)
    expect(yamlTextDepth(Array.from({ length: 40 }, (_, i) => `${" ".repeat(i)}k:`).join("\n"))).toBeGreaterThanOrEqual(40)
  })

  it("is measured on values far deeper than the stack allows recursion", () => {
    let deep: unknown = 1
    for (let i = 0; i < 200_000; i++) deep = [deep]
    expect(nestingDepth(deep)).toBe(200_000)
    expect(nestsTooDeeply(deep)).toBe(true)
    expect(jsonTextDepth(`${"[".repeat(200_000)}1${"]".repeat(200_000)}`)).toBe(200_000)
  })

  it("refuses only past the limit", () => {
    const nest = (depth: number): unknown => JSON.parse(`${"[".repeat(depth)}1${"]".repeat(depth)}`)
    expect(nestsTooDeeply(nest(maxNestingDepth))).toBe(false)
    expect(nestsTooDeeply(nest(maxNestingDepth + 1))).toBe(true)
  })
})
