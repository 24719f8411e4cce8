import { test as propTest, fc } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { freezeJson } from "../src/apiserver/store/JsonValue.ts"
import { objectFieldSet, sameFieldSet, valueFieldSet } from "../src/apiserver/managed/ObjectFields.ts"
import { fieldsOf } from "./BuiltinKinds.ts"

// Objects over a few field names, among them keyed lists (containers by name, ports by two keys,
// conditions by type), a set (finalizers) and an atomic list (args), with few enough scalars that two
// drawn values often share a shape.
const scalar = fc.oneof(fc.constantFrom("a", "b", 1, 0, -0, true, null, Number.NaN), fc.constant(undefined))
const field = fc.constantFrom("name", "type", "containerPort", "protocol", "image", "spec", "containers", "ports", "conditions", "finalizers", "args", "labels")
const value: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    scalar,
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(field, tie("value"), { maxKeys: 4, noNullPrototype: true })
  )
})).value
// A pod-like spec whose keyed lists hold objects keyed as their schemas say (and sometimes not).
const item = fc.record({ name: scalar, type: scalar, containerPort: scalar, protocol: scalar, image: scalar }, { requiredKeys: [] })
const keyed: fc.Arbitrary<unknown> = fc.record(
  { containers: fc.array(item, { maxLength: 3 }), ports: fc.array(item, { maxLength: 3 }), conditions: fc.array(item, { maxLength: 3 }), finalizers: fc.array(scalar, { maxLength: 3 }) },
  { requiredKeys: [] }
)
const anyValue = fc.oneof(value, keyed, fc.record({ spec: keyed }))
const trees = fc.constantFrom(fieldsOf("trainjobs"), fieldsOf("jobsets"), fieldsOf("trainingruntimes"), "open" as const)
const text = (x: unknown): string => JSON.stringify(x)

describe("sameFieldSet", () => {
  propTest.prop([anyValue, anyValue, trees, field])("says two values give the same set only when they do", (a, b, tree, at) => {
    if (sameFieldSet(a, b, tree, at)) expect(text(valueFieldSet(b, tree, at))).toBe(text(valueFieldSet(a, tree, at)))
  })

  it("never takes a key an object inherits for one it owns", () => {
    const inheriting = Object.assign(Object.create({ extra: { deep: 1 } }) as Record<string, unknown>, { name: "a" })
    expect(sameFieldSet(inheriting, { name: "b" }, "open", "spec")).toBe(false)
    expect(sameFieldSet({ name: "b" }, inheriting, "open", "spec")).toBe(true)
    expect(text(valueFieldSet(inheriting, "open", "spec"))).toBe(text(valueFieldSet({ name: "b" }, "open", "spec")))
  })

  // The value with some of its scalars replaced (list keys and set items among them), in turn.
  const rescaled = (a: unknown, replacements: ReadonlyArray<unknown>): unknown => {
    let next = 0
    const walk = (x: unknown): unknown => {
      if (Array.isArray(x)) return x.map(walk)
      if (typeof x === "object" && x !== null) return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, walk(v)]))
      const replacement = replacements[next++ % Math.max(1, replacements.length)]
      return replacement === "keep" ? x : replacement
    }
    return walk(a)
  }

  propTest.prop([anyValue, fc.array(fc.oneof(scalar, fc.constant("keep")), { maxLength: 6 }), trees, field], { numRuns: 500 })(
    "tells a value from one with other scalars only when their sets differ",
    (a, replacements, tree, at) => {
      const b = rescaled(a, replacements)
      if (sameFieldSet(a, b, tree, at)) expect(text(valueFieldSet(b, tree, at))).toBe(text(valueFieldSet(a, tree, at)))
    }
  )

  propTest.prop([value, trees, field])("knows a copy, and one with other values where they shape no set, for the same", (a, tree, at) => {
    expect(sameFieldSet(a, structuredClone(a), tree, at)).toBe(true)
    // An image is no list's key: another one gives the same set.
    const reimaged = (x: unknown): unknown =>
      Array.isArray(x) ? x.map(reimaged) : typeof x === "object" && x !== null ? Object.fromEntries(Object.entries(x).map(([k, v]) => [k, k === "image" && typeof v === "string" ? `${v}!` : reimaged(v)])) : x
    expect(sameFieldSet(a, reimaged(a), tree, at)).toBe(true)
  })

  propTest.prop([fc.array(fc.dictionary(field, value, { maxKeys: 4, noNullPrototype: true }), { minLength: 1, maxLength: 4 }), trees])(
    "leaves an object's set as it would be built, however many objects of its kind came before",
    (objects, tree) => {
      for (const object of objects) {
        const frozen = freezeJson(structuredClone(object))
        expect(text(objectFieldSet(frozen, tree, "things"))).toBe(text(objectFieldSet(structuredClone(object), tree)))
      }
    }
  )
})
