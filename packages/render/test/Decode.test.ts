import { Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { decodableFields, decodeWire, formatPath, underField } from "../src/Decode.ts"

describe("formatPath", () => {
  it("writes a path as a reader would type it", () => {
    expect(formatPath(["spec", "command", 2])).toBe("spec.command[2]")
    expect(formatPath(["spec", "env", "A-B"])).toBe('spec.env["A-B"]')
    expect(formatPath([Symbol("s")])).toBe("[Symbol(s)]")
  })
  it("quotes a key of more than 64 characters cut at 64", () => {
    expect(formatPath(["a".repeat(64)])).toBe("a".repeat(64))
    expect(formatPath(["a".repeat(65)])).toBe(`["${"a".repeat(64)}..."]`)
    expect(formatPath(["-".repeat(64)])).toBe(`["${"-".repeat(64)}"]`)
    expect(formatPath(["-".repeat(65)])).toBe(`["${"-".repeat(64)}..."]`)
  })
})

describe("underField", () => {
  it("joins a field and a path the way formatPath writes paths", () => {
    expect(underField("a")("")).toBe("a")
    expect(underField("a")("b[1]")).toBe("a.b[1]")
    expect(underField("a")("[1]")).toBe("a[1]")
  })
})

describe("decodeWire", () => {
  it("cuts effect's message at 200 characters, and still shows the value", () => {
    const long = Schema.Struct({ a: Schema.Literals(["a".repeat(150), "b".repeat(150)]) })
    const decoded = decodeWire(long, { a: 1 }, (path) => path)
    // `Expected "aaa…" | "bbb…"`: 10 + 150 + 5 characters, then 35 of the second literal.
    expect(Result.isFailure(decoded) && decoded.failure.reasons).toEqual([`a: Expected "${"a".repeat(150)}" | "${"b".repeat(35)}..., got 1`])
    // Exactly 200 characters are kept whole.
    const edge = Schema.Struct({ a: Schema.Literals(["a".repeat(150), "b".repeat(34)]) })
    const whole = decodeWire(edge, { a: 1 }, (path) => path)
    expect(Result.isFailure(whole) && whole.failure.reasons).toEqual([`a: Expected "${"a".repeat(150)}" | "${"b".repeat(34)}", got 1`])
  })
  it("names a missing field as required and an unknown one as unknown", () => {
    const decoded = decodeWire(Schema.Struct({ a: Schema.String }), { b: 1 }, (path) => (path === "" ? "input" : path))
    expect(Result.isFailure(decoded) && decoded.failure.reasons).toEqual(["b: unknown field", "a: required"])
  })
  it("reports a check that names a path through null, a missing field or a string, without throwing", () => {
    const deep = (path: ReadonlyArray<PropertyKey>) =>
      Schema.Struct({ a: Schema.Unknown }).check(Schema.makeFilter(() => ({ path, issue: "bad" })))
    const reasons = (path: ReadonlyArray<PropertyKey>, input: unknown) => {
      const decoded = decodeWire(deep(path), input, (p) => p)
      return Result.isFailure(decoded) ? decoded.failure.reasons : []
    }
    expect(reasons(["a", "b"], { a: null })).toEqual(["a.b: bad, got nothing"])
    expect(reasons(["x", "y"], { a: 1 })).toEqual(["x.y: bad, got nothing"])
    // A string is not walked into: its characters are not the field's value.
    expect(reasons(["a", 0], { a: "xyz" })).toEqual(["a[0]: bad, got nothing"])
    expect(reasons(["a", "b"], { a: { b: 7 } })).toEqual(["a.b: bad, got 7"])
  })
})

describe("decodableFields", () => {
  const schema = Schema.Struct({ a: Schema.optional(Schema.String), b: Schema.Number })
  it("keeps the fields of the input that decode alone, and no field the input does not have", () => {
    expect(decodableFields(schema, { a: "x", b: "not a number" })).toEqual({ a: "x" })
    const none = decodableFields(schema, {})
    expect(Object.keys(none)).toEqual([])
    expect(decodableFields(schema, "not an object")).toEqual({})
  })
})
