import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { rfc3339, withCheckState, type CheckEntry, type CheckState, checkEntries, checkEntry, HOLD_MESSAGE, isHeldEntry } from "../../src/lifecycle/AdmissionChecks.ts"

const name = fc.constantFrom("a", "b", "dispatch-check", "c")
const state = fc.constantFrom<CheckState>("Pending", "Ready", "Retry", "Rejected")
const stamp = fc.integer({ min: 0, max: 4_000_000_000_000 }).map(rfc3339)
const entry: fc.Arbitrary<CheckEntry> = fc.record({ name, state, message: fc.string(), lastTransitionTime: stamp, retryCount: fc.nat(3) })
const entries = fc.uniqueArray(entry, { selector: (e) => e["name"], maxLength: 4 })

describe("withCheckState", () => {
  test.prop([entries, name, state, fc.string(), stamp])("sets exactly the named entry, keeping the others and their order", (before, check, s, message, now) => {
    const after = withCheckState(before, check, s, message, now)
    const named = after.filter((e) => e["name"] === check)
    expect(named).toHaveLength(1)
    expect(named[0]).toMatchObject({ state: s, message })
    expect(after.filter((e) => e["name"] !== check)).toEqual(before.filter((e) => e["name"] !== check))
    const old = before.find((e) => e["name"] === check)
    // Fields dispatch does not manage (retryCount, podSetUpdates) survive.
    if (old !== undefined) expect(named[0]?.["retryCount"]).toBe(old["retryCount"])
  })

  test.prop([entries, name, state, fc.string(), stamp])("moves lastTransitionTime only when the state changes", (before, check, s, message, now) => {
    const old = before.find((e) => e["name"] === check)
    const after = withCheckState(before, check, s, message, now).find((e) => e["name"] === check)
    expect(after?.["lastTransitionTime"]).toBe(old !== undefined && old["state"] === s ? old["lastTransitionTime"] : now)
  })

  test.prop([entries, name, state, fc.string(), stamp, stamp])("is idempotent: setting the same state again changes nothing", (before, check, s, message, first, second) => {
    const once = withCheckState(before, check, s, message, first)
    expect(withCheckState(once, check, s, message, second)).toEqual(once)
  })
})

describe("rfc3339", () => {
  test.prop([fc.integer({ min: 0, max: 4_000_000_000_000 })])("writes whole seconds that parse back", (ms) => {
    const text = rfc3339(ms)
    expect(text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    expect(Date.parse(text)).toBe(Math.floor(ms / 1000) * 1000)
  })
})

// What dispatch reads off a Workload's admission checks and writes back, at the edges AdmissionChecks.test.ts's
// properties do not draw: entries that are not objects, an entry without a transition time, a hold
// message on a check in another state.
describe("admission checks at the edges", () => {
  const workloadWith = (admissionChecks: unknown) => ({ metadata: { name: "w" }, status: { admissionChecks } })

  describe("checkEntries and checkEntry", () => {
    it("skip entries that are not objects, and find a check by name", () => {
      const good = { name: "dispatch-check", state: "Pending" }
      const w = workloadWith([null, "dispatch-check", ["dispatch-check"], 7, good, { name: "other", state: "Ready" }])
      expect(checkEntries(w)).toEqual([good, { name: "other", state: "Ready" }])
      expect(checkEntry(w, "dispatch-check")).toBe(good)
      expect(checkEntry(w, "absent")).toBeUndefined()
      expect(checkEntries(workloadWith("not a list"))).toEqual([])
      expect(checkEntries({ metadata: {} })).toEqual([])
    })
  })

  describe("isHeldEntry", () => {
    it("holds on Retry (an eviction on its way) and on Pending with dispatch's hold message only", () => {
      expect(isHeldEntry({ name: "c", state: "Retry", message: "" })).toBe(true)
      expect(isHeldEntry({ name: "c", state: "Pending", message: HOLD_MESSAGE })).toBe(true)
      expect(isHeldEntry({ name: "c", state: "Pending", message: "Reset to Pending after eviction" })).toBe(false)
      expect(isHeldEntry({ name: "c", state: "Ready", message: HOLD_MESSAGE })).toBe(false)
      expect(isHeldEntry({ name: "c", state: "Rejected", message: HOLD_MESSAGE })).toBe(false)
      expect(isHeldEntry(undefined)).toBe(false)
    })
  })

  describe("withCheckState", () => {
    it("adds a missing entry after the others, stamped now", () => {
      const other = { name: "other", state: "Ready", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" }
      expect(withCheckState([other], "dispatch-check", "Pending", HOLD_MESSAGE, "2026-02-02T00:00:00Z")).toEqual([
        other,
        { name: "dispatch-check", state: "Pending", message: HOLD_MESSAGE, lastTransitionTime: "2026-02-02T00:00:00Z" }
      ])
    })

    it("stamps an entry that has no transition time yet, even when its state does not change", () => {
      expect(withCheckState([{ name: "c", state: "Pending", message: "" }], "c", "Pending", HOLD_MESSAGE, "2026-02-02T00:00:00Z")).toEqual([
        { name: "c", state: "Pending", message: HOLD_MESSAGE, lastTransitionTime: "2026-02-02T00:00:00Z" }
      ])
    })
  })
})
