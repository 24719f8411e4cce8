import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { findCondition, readConditions, setCondition, type Condition } from "../src/controllers/shared/Conditions.ts"
import { formatTimestamp, parseTimestamp } from "../src/controllers/shared/Timestamps.ts"

const types = fc.constantFrom("Suspended", "Complete", "Failed", "QuotaReserved", "Admitted", "Evicted", "Finished", "Requeued", "PodsReady", "Active")
const statuses = fc.constantFrom<Condition["status"]>("True", "False", "Unknown")
const update = fc.record({ type: types, status: statuses, reason: fc.constantFrom("A", "B"), message: fc.string({ maxLength: 8 }) })
const stamps = fc.integer({ min: 0, max: 4_000_000_000 }).map((s) => formatTimestamp(s * 1000))

describe("setCondition", () => {
  test.prop([fc.array(fc.tuple(update, stamps), { maxLength: 30 }), fc.integer({ min: 1, max: 8 })])(
    "keeps one entry per type, at most max, and the one just set",
    (steps, max) => {
      const final = steps.reduce<ReadonlyArray<Condition>>((all, [u, at]) => setCondition(all, u, at, max), [])
      expect(new Set(final.map((c) => c.type)).size).toBe(final.length)
      expect(final.length).toBeLessThanOrEqual(max)
      const last = steps.at(-1)
      if (last !== undefined) expect(findCondition(final, last[0].type)).toMatchObject(last[0])
    }
  )

  test.prop([update, update, stamps, stamps])("moves lastTransitionTime only when the status flips", (first, second, t1, t2) => {
    const before = setCondition([], first, t1, 8)
    const after = setCondition(before, { ...second, type: first.type }, t2, 8)
    expect(findCondition(after, first.type)?.lastTransitionTime).toBe(second.status === first.status ? t1 : t2)
  })

  test.prop([fc.array(fc.tuple(update, stamps), { maxLength: 12 })])("reads back what it writes", (steps) => {
    const final = steps.reduce<ReadonlyArray<Condition>>((all, [u, at]) => setCondition(all, u, at, 16), [])
    expect(readConditions(JSON.parse(JSON.stringify(final)))).toEqual(final)
  })

  it("drops the oldest other condition when full", () => {
    const full = ["A", "B", "C"].reduce<ReadonlyArray<Condition>>(
      (all, type, i) => setCondition(all, { type, status: "True", reason: "R", message: "" }, formatTimestamp(i * 1000), 3),
      []
    )
    const next = setCondition(full, { type: "D", status: "True", reason: "R", message: "" }, formatTimestamp(9000), 3)
    expect(next.map((c) => c.type)).toEqual(["B", "C", "D"])
  })
})

describe("timestamps", () => {
  test.prop([fc.integer({ min: 0, max: 4_000_000_000_000 })])("format to whole seconds and parse back", (ms) => {
    const text = formatTimestamp(ms)
    expect(text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    expect(parseTimestamp(text)).toBe(Math.floor(ms / 1000) * 1000)
  })
  it("parses nothing from garbage", () => {
    expect(parseTimestamp("yesterday")).toBeUndefined()
    expect(parseTimestamp(undefined)).toBeUndefined()
  })
})
