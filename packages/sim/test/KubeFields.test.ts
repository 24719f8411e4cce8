// Controllers decide whether to write by comparing what they want with what is stored: sameJson must
// say "equal" exactly when the two JSON texts are equal (key order, members JSON leaves out, and the
// values JSON rewrites included), or a controller writes what changes nothing, or misses a change.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { sameJson } from "../src/controllers/shared/KubeFields.ts"
import { freezeJson } from "../src/apiserver/store/JsonValue.ts"

// JSON values with the members JSON leaves out or rewrites: undefined, NaN, -0, Infinity.
const odd = fc.constantFrom(undefined, Number.NaN, -0, 0, Number.POSITIVE_INFINITY, null, "", "null", "0")
const value: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.oneof(fc.jsonValue({ maxDepth: 1 }), odd),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("a", "b", "c", "1", "__proto__"), tie("value"), { maxKeys: 3, noNullPrototype: true })
  )
})).value

const text = (v: unknown): string | undefined => JSON.stringify(v)

describe("sameJson", () => {
  test.prop([value, value], { numRuns: 500 })("says equal exactly when the JSON texts are equal", (a, b) => {
    expect(sameJson(a, b)).toBe(text(a) === text(b))
  })

  test.prop([value], { numRuns: 200 })("finds a value equal to a copy of it, and to itself frozen", (a) => {
    const copy = text(a) === undefined ? undefined : JSON.parse(text(a) ?? "null")
    expect(sameJson(a, copy)).toBe(true)
    expect(sameJson(copy, freezeJson(structuredClone(copy)))).toBe(true)
  })

  it("tells key order apart, as the text does", () => {
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false)
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true)
    expect(sameJson([undefined], [null])).toBe(true)
    expect(sameJson({ at: new Date(0) }, { at: "1970-01-01T00:00:00.000Z" })).toBe(true)
  })
})
