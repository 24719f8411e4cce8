import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { rfc3339, withCheckState, type CheckEntry, type CheckState } from "../../src/lifecycle/AdmissionChecks.ts"

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
