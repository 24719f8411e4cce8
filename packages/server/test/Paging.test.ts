import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { expect } from "vitest"
import { fitToBytes, maxPageLength, page, pageWindow } from "../src/wire/Paging.ts"

const window = fc.record({ index: fc.nat({ max: 500 }), pageLength: fc.integer({ min: 1, max: maxPageLength }) })

// A list of `total` items read through `window`, as the database would answer it.
const slice = (total: number, w: { index: number; pageLength: number }) =>
  Array.from({ length: Math.max(0, Math.min(w.pageLength, total - w.index)) }, (_, i) => w.index + i)

const indexOf = (link: string) => Number(new URL(link).searchParams.get("index"))
const link = (index: number) => `http://x/items?index=${index}`

test.prop([fc.nat({ max: 500 }), window])("a page is complete exactly when it reaches the end, and only then has no next link", (total, w) => {
  const p = page(slice(total, w), total, w, link)
  expect(p.isComplete).toBe(w.index + p.data.length >= total)
  expect(p.next === undefined).toBe(p.isComplete)
  expect(p.prev === undefined).toBe(w.index === 0)
  expect(indexOf(p.first)).toBe(0)
})

test.prop([fc.nat({ max: 400 }), fc.integer({ min: 1, max: maxPageLength })])("following next links from the first page visits every item once, in order", (total, pageLength) => {
  const seen: Array<number> = []
  let w = { index: 0, pageLength }
  for (let guard = 0; guard <= total; guard++) {
    const p = page(slice(total, w), total, w, link)
    seen.push(...p.data)
    if (p.next === undefined) break
    w = { index: indexOf(p.next), pageLength }
  }
  expect(seen).toEqual(Array.from({ length: total }, (_, i) => i))
})

test.prop([fc.nat({ max: 400 }), window])("the previous link starts one page earlier, never before the first item", (total, w) => {
  const p = page(slice(total, w), total, w, link)
  if (p.prev !== undefined) expect(indexOf(p.prev)).toBe(Math.max(0, w.index - w.pageLength))
})

test("a query without paging fields reads the first 20 items", () => {
  expect(pageWindow({})).toEqual({ index: 0, pageLength: 20 })
  expect(pageWindow({ index: 40, pageLength: 5 })).toEqual({ index: 40, pageLength: 5 })
})

test("an item that cannot be written as JSON is replaced by what `unwritable` makes of it, counted at its own size; without it, the failure is thrown", () => {
  const items = [{ id: 1 }, { id: 2, bad: 1n }, { id: 3 }]
  const replaced = fitToBytes(items, 1000, (item, cause) => ({ id: item.id, why: cause instanceof TypeError }))
  expect(replaced).toEqual({ kept: [{ id: 1 }, { id: 2, why: true }, { id: 3 }], cut: false })
  // The budget counts the replacement's bytes: `{"id":1}` (8), `,{"id":2,"why":true}` (20) and no room for a third.
  expect(fitToBytes(items, 28, (item) => ({ id: item.id, why: true }))).toEqual({ kept: [{ id: 1 }, { id: 2, why: true }], cut: true })
  expect(() => fitToBytes(items, 1000)).toThrow(TypeError)
})

test("a page's items are counted as their JSON with a comma between, and the first is always held", () => {
  const two = [{ id: 1 }, { id: 2 }]
  // `{"id":1}` (8) + `,` + `{"id":2}` (8) = 17.
  expect(fitToBytes(two, 17)).toEqual({ kept: two, cut: false })
  expect(fitToBytes(two, 16)).toEqual({ kept: [{ id: 1 }], cut: true })
  expect(fitToBytes([{ id: 1 }], 2)).toEqual({ kept: [{ id: 1 }], cut: false })
  // What JSON has no text for counts as `null` (4), written or replaced.
  expect(fitToBytes([undefined, undefined], 8)).toEqual({ kept: [undefined], cut: true })
  expect(fitToBytes<unknown>([1n, 1n], 8, () => undefined)).toEqual({ kept: [undefined], cut: true })
})
