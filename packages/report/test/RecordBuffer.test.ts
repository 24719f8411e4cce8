// The bounded buffer against a plain array as its model: first in, first out; when full the oldest goes, counted by kind.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { RecordBuffer } from "../src/RecordBuffer.ts"

type Op = { readonly push: number } | { readonly shift: true } | { readonly clear: true } | { readonly takeDrops: true }
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -1000, max: 1000 }).map((push) => ({ push })) },
  { weight: 3, arbitrary: fc.constant({ shift: true as const }) },
  { weight: 1, arbitrary: fc.constant({ clear: true as const }) },
  { weight: 1, arbitrary: fc.constant({ takeDrops: true as const }) }
)
// Even numbers stand for metrics, odd ones for log records.
const isMetric = (n: number) => n % 2 === 0

describe("RecordBuffer", () => {
  test.prop([fc.integer({ min: 1, max: 12 }), fc.array(op, { maxLength: 120 })])("behaves as a bounded queue that drops and counts its oldest", (capacity, ops) => {
    const buffer = new RecordBuffer<number>(capacity, isMetric)
    let model: Array<number> = []
    let drops = { metrics: 0, logs: 0 }
    for (const o of ops) {
      if ("push" in o) {
        if (model.length === capacity) {
          const oldest = model.shift() ?? 0
          if (isMetric(oldest)) drops.metrics++
          else drops.logs++
        }
        model.push(o.push)
        buffer.push(o.push)
      } else if ("shift" in o) {
        expect(buffer.peek()).toBe(model[0])
        expect(buffer.shift()).toBe(model.shift())
      } else if ("clear" in o) {
        buffer.clear()
        model = []
      } else {
        expect(buffer.takeDrops()).toEqual(drops)
        drops = { metrics: 0, logs: 0 }
      }
      expect(buffer.length).toBe(model.length)
      expect(buffer.length).toBeLessThanOrEqual(capacity)
      expect(buffer.dropped).toEqual(drops)
    }
    const rest: Array<number | undefined> = []
    while (buffer.length > 0) rest.push(buffer.shift())
    expect(rest).toEqual(model)
    expect(buffer.shift()).toBeUndefined()
  })

  it("counts again the drops of a batch that was not told, and keeps the newest when pushed past its size", () => {
    const buffer = new RecordBuffer<number>(3, isMetric)
    for (const n of [0, 1, 2, 3, 4, 5]) buffer.push(n)
    expect(buffer.takeDrops()).toEqual({ metrics: 2, logs: 1 })
    buffer.push(6)
    buffer.restoreDrops({ metrics: 2, logs: 1 })
    expect(buffer.dropped).toEqual({ metrics: 2, logs: 2 })
    expect([buffer.shift(), buffer.shift(), buffer.shift()]).toEqual([4, 5, 6])
  })

  it("wraps around its end: a record pushed after a shift takes the freed place, oldest first still", () => {
    const buffer = new RecordBuffer<number>(3, isMetric)
    for (const n of [1, 2, 3]) buffer.push(n)
    expect(buffer.shift()).toBe(1)
    buffer.push(4)
    buffer.push(5)
    // Full again: 5 pushed out the oldest, 2 (a metric).
    expect(buffer.dropped).toEqual({ metrics: 1, logs: 0 })
    expect([buffer.shift(), buffer.shift(), buffer.shift(), buffer.shift()]).toEqual([3, 4, 5, undefined])
  })

  it("holds at least one record", () => {
    const buffer = new RecordBuffer<number>(0, isMetric)
    buffer.push(1)
    buffer.push(2)
    expect(buffer.length).toBe(1)
    expect(buffer.shift()).toBe(2)
  })
})
