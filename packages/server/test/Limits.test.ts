// What a request body may hold, checked on the parsed body before it is decoded: strings' sizes, collections' items.
import { test as propTest } from "@fast-check/vitest"
import fc from "fast-check"
import { expect, test } from "vitest"
import { malformedTexts } from "@dispatch/jobs"
import { bodyFlawed, crowdedFields, oversizedFields } from "../src/wire/Limits.ts"

propTest.prop([fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 40 }), fc.boolean()])(
  "crowdedFields names each array or object with more items than the limit, with its path and count",
  (items, limit, asObject) => {
    const collection = asObject ? Object.fromEntries(Array.from({ length: items }, (_, i) => [`k${i}`, i])) : Array.from({ length: items }, (_, i) => i)
    expect(crowdedFields({ outer: { inner: collection } }, limit)).toEqual(items > limit ? [{ path: "outer.inner", items }] : [])
  }
)

test("crowdedFields names the body itself, array items by index, every crowded collection, and nothing inside a crowded one", () => {
  expect(crowdedFields([1, 2, 3], 2)).toEqual([{ path: "(the body)", items: 3 }])
  expect(crowdedFields({ a: [[1, 2, 3]], b: { c: [1, 2, 3] } }, 2)).toEqual([
    { path: "a[0]", items: 3 },
    { path: "b.c", items: 3 }
  ])
  expect(crowdedFields({ a: [[1, 2, 3], [4], [5]] }, 2)).toEqual([{ path: "a", items: 3 }])
  expect(crowdedFields({ a: "long string", b: 7, c: null }, 2)).toEqual([{ path: "(the body)", items: 3 }])
  expect(crowdedFields("text", 0)).toEqual([])
  expect(crowdedFields({ a: null, b: "xyz", c: 12345 }, 3)).toEqual([])
})

// Units that make every kind of problem likely in a small value: NUL, surrogate halves (paired or not), a 3-byte
// character, and plain text.
const unit = fc.constantFrom("\u0000", "\uD800", "\uDBFF", "\uDC00", "\uDFFF", "\uD83D\uDE00", "\u20AC", "é", "a", "b")
const body = fc.jsonValue({ maxDepth: 4, stringUnit: unit })

propTest.prop([body, fc.integer({ min: 1, max: 24 }), fc.integer({ min: 0, max: 6 })])(
  "bodyFlawed is true exactly when oversizedFields, crowdedFields or malformedTexts names something",
  (value, fieldBytes, items) => {
    const named = oversizedFields(value, fieldBytes).length + crowdedFields(value, items).length + malformedTexts(value).length
    expect(bodyFlawed(value, fieldBytes, items)).toBe(named > 0)
  }
)

test("bodyFlawed finds each kind of problem alone, in values, keys and the body itself", () => {
  const record = { name: "loss", value: 1.5, step: 3, timestamp: "2026-01-01T00:00:00.000Z" }
  expect(bodyFlawed({ metrics: [record, record] }, 64, 10)).toBe(false)
  expect(bodyFlawed({ metrics: [record, { ...record, name: "x".repeat(65) }] }, 64, 10)).toBe(true)
  expect(bodyFlawed({ metrics: [record, { ...record, name: "\u20AC".repeat(21) }] }, 64, 10)).toBe(false)
  expect(bodyFlawed({ metrics: [record, { ...record, name: "\u20AC".repeat(22) }] }, 64, 10)).toBe(true)
  expect(bodyFlawed({ metrics: [record, { ["k".repeat(65)]: 1 }] }, 64, 10)).toBe(true)
  expect(bodyFlawed({ metrics: [record, record, record] }, 64, 2)).toBe(true)
  expect(bodyFlawed({ metrics: [{ a: 1, b: 2, c: 3 }] }, 64, 2)).toBe(true)
  expect(bodyFlawed({ metrics: [{ ...record, name: "lo\u0000ss" }] }, 64, 10)).toBe(true)
  expect(bodyFlawed({ metrics: [{ ...record, ["\uDC00"]: 1 }] }, 64, 10)).toBe(true)
  expect(bodyFlawed(`${"x".repeat(40)}\uD800`, 64, 10)).toBe(true)
  expect(bodyFlawed(`${"x".repeat(40)}\uD83D\uDE00`, 64, 10)).toBe(false)
  expect(bodyFlawed("x".repeat(65), 64, 10)).toBe(true)
  // At the limits exactly, nothing is flawed.
  expect(bodyFlawed("x".repeat(64), 64, 10)).toBe(false)
  expect(bodyFlawed([[1, 2], { a: 1, b: 2 }], 64, 2)).toBe(false)
  expect(bodyFlawed(null, 0, 0)).toBe(false)
})

test("bodyFlawed walks a body nested far deeper than the call stack without overflowing it", () => {
  let deep: unknown = "\u0000"
  for (let i = 0; i < 100_000; i++) deep = [deep]
  expect(bodyFlawed(deep, 64, 10)).toBe(true)
})
