// What dispatch reads off a Workload's admission checks and writes back, at the edges AdmissionChecks.test.ts's
// properties do not draw: entries that are not objects, an entry without a transition time, a hold
// message on a check in another state.
import { describe, expect, it } from "vitest"
import { checkEntries, checkEntry, HOLD_MESSAGE, isHeldEntry, withCheckState } from "../../src/lifecycle/AdmissionChecks.ts"

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
