// What a request body may hold, checked on the parsed body before it is decoded: strings' sizes, collections' items.
import { test as propTest } from "@fast-check/vitest"
import fc from "fast-check"
import { expect, test } from "vitest"
import { crowdedFields } from "../src/wire/Limits.ts"

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
