import { Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { decodeWire, formatPath, underField } from "../src/Decode.ts"

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
})
