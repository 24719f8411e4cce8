import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Result, Schema } from "effect"
import { expect } from "vitest"
import { decodeJobRequest, isStorableText, LogInput, malformedTexts, maxResourceId, parseResourceId, ResourceIdFromPath, Text, textFlaw, textLimits } from "../src/index.ts"

// Any UTF-16 unit, surrogates and NUL included, so lone halves and NULs turn up often.
const anyUnits = fc.string({ unit: fc.oneof(fc.constantFrom("\u0000", "\uD800", "\uDBFF", "\uDC00", "\uDFFF", "a", "é"), fc.string({ unit: "binary", minLength: 1, maxLength: 1 })) })

// The oracle: text PostgreSQL stores unchanged is text UTF-8 round-trips unchanged, without NUL.
const storable = (text: string) => !text.includes("\u0000") && Buffer.from(text, "utf8").toString("utf8") === text

test.prop([anyUnits])("a string is flawed exactly when it holds NUL or does not survive UTF-8", (text) => {
  expect(textFlaw(text) === undefined).toBe(storable(text))
})

test.prop([anyUnits, fc.nat({ max: 40 })])("isStorableText says what textFlaw says, for short strings and long ones", (text, padding) => {
  const padded = "x".repeat(padding) + text
  expect(isStorableText(text)).toBe(textFlaw(text) === undefined)
  expect(isStorableText(padded)).toBe(textFlaw(padded) === undefined)
})

const wellFormedJson = fc.jsonValue({ maxDepth: 4 }).filter((v) => malformedTexts(v).length === 0)

test.prop([wellFormedJson, fc.constantFrom("\u0000", "\uD800", "x\uDFFFy"), fc.boolean()])(
  "a flawed string put anywhere in a JSON value is named by its path, as a value or as a key",
  (value, flawed, asKey) => {
    const wrapped = { outer: [value, asKey ? { [flawed]: 1 } : { inner: flawed }] }
    const found = malformedTexts(wrapped)
    expect(found.map((p) => p.field)).toEqual([asKey ? "outer[1].(a key)" : "outer[1].inner"])
    expect(found[0]?.status).toBe(400)
  }
)

test.prop([fc.array(fc.constantFrom("\u0000", "\uDC00", "ok"), { minLength: 1, maxLength: 20 })])("every flawed string is reported, not only the first", (items) => {
  expect(malformedTexts({ items }).length).toBe(items.filter((i) => i !== "ok").length)
})

test("a body nested far deeper than the call stack is walked without overflowing it", () => {
  let deep: unknown = "\u0000"
  for (let i = 0; i < 100_000; i++) deep = [deep]
  expect(malformedTexts(deep)).toHaveLength(1)
})

test.prop([fc.integer({ min: 0, max: 300 })])("a bounded text accepts up to its limit and refuses one character more", (extra) => {
  const decode = Schema.decodeUnknownResult(Text(textLimits.name))
  expect(Result.isSuccess(decode("n".repeat(Math.min(extra, textLimits.name))))).toBe(true)
  expect(Result.isFailure(decode("n".repeat(textLimits.name + 1 + extra)))).toBe(true)
})

test("the job model refuses NUL and lone surrogates in every string field, all at once", () => {
  const decoded = decodeJobRequest({ entrypoint: 1, queue: 1, values: { "a\u0000": "v", b: "\uD800" }, description: "x\u0000", swaps: { s: "\uDC00" }, timeout: "1\u0000h" })
  const problems = Result.isFailure(decoded) ? decoded.failure.problems : []
  // A record key outside the key schema is an unknown field; the service names its flaw earlier (malformedTexts).
  expect(problems.map((p) => p.path).sort()).toEqual(["description", "swaps.s", "timeout", "values.a\u0000", "values.b"])
  expect(problems.filter((p) => /NUL|unpaired surrogate/.test(p.detail))).toHaveLength(4)
  expect(Result.isFailure(Schema.decodeUnknownResult(LogInput)({ severity: "INFO", loggerName: "l", message: "\uD83D" }))).toBe(true)
})

test.prop([fc.integer({ min: 1, max: maxResourceId })])("every stored id reads back from its decimal spelling", (id) => {
  expect(parseResourceId(String(id))).toBe(id)
  expect(Schema.decodeUnknownResult(ResourceIdFromPath)(String(id))).toEqual(Result.succeed(id))
})

test.prop([fc.oneof(fc.string(), fc.stringMatching(/^[-+ 0]?[0-9]{1,12}(\.0|e0)?$/), fc.bigInt({ min: 2147483648n, max: 2n ** 64n }).map(String))])(
  "a path id parses only in its one canonical spelling, within the stored range",
  (text) => {
    const id = parseResourceId(text)
    if (id !== undefined) expect(String(id)).toBe(text)
    expect(id !== undefined).toBe(/^[1-9][0-9]*$/.test(text) && BigInt(text) <= BigInt(maxResourceId))
  }
)

test.each(["0x10", "1.0", "1e0", " 1", "1 ", "+1", "01", "0", "-1", "2147483648", "9007199254740991", "１"])("%j is not an id", (text) => {
  expect(parseResourceId(text)).toBeUndefined()
  expect(Result.isFailure(Schema.decodeUnknownResult(ResourceIdFromPath)(text))).toBe(true)
})
