// The name Kueue gives a job's Workload.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { workloadNameFor } from "../src/controllers/kueue/WorkloadNames.ts"

const rfc1035 = fc.stringMatching(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/)

describe("workload names", () => {
  test.prop([rfc1035, fc.uuid()])("are trainjob-<name>-<5 hex>, deterministic", (name, uid) => {
    const wl = workloadNameFor(name, uid)
    expect(wl).toMatch(new RegExp(`^trainjob-${name}-[0-9a-f]{5}$`))
    expect(workloadNameFor(name, uid)).toBe(wl)
    expect(wl.length).toBeLessThanOrEqual(253)
  })
  it("differ for a recreated job (new uid)", () => {
    expect(workloadNameFor("job", "uid-1")).not.toBe(workloadNameFor("job", "uid-2"))
  })
})
