// The line `dispatch find` prints for a job.
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import type { FoundJob } from "@dispatch/effects"
import { statusLine } from "../../src/commands/Find.ts"

describe("find output", () => {
  const ref = { namespace: "ns", name: "dj-x-s1" }
  const status: fc.Arbitrary<FoundJob> = fc.oneof(
    fc.constantFrom("Absent" as const, "Running" as const, "Stopping" as const).map((state) => ({ state, ref })),
    fc.record({ state: fc.constantFrom("Held" as const, "Queued" as const, "Succeeded" as const), reason: fc.string({ minLength: 1, maxLength: 20 }) }).map((s) => ({ ...s, ref })),
    fc.record({ state: fc.constant("Failed" as const), reason: fc.string({ minLength: 1, maxLength: 20 }), message: fc.string({ maxLength: 20 }) }).map((s) => ({ ...s, ref })),
    fc.record({ state: fc.constant("InFlight" as const), sinceMs: fc.integer({ min: 0, max: 2e12 }), untilMs: fc.integer({ min: 0, max: 2e12 }) }).map((s) => ({ ...s, ref }))
  )
  test.prop([status])("names the job and its state, and any reason the state carries", (s) => {
    const line = statusLine(s)
    expect(line.startsWith(`ns/dj-x-s1: ${s.state}`)).toBe(true)
    if ("reason" in s) expect(line).toContain(s.reason)
  })
})
