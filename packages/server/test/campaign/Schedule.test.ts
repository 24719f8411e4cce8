import fc from "fast-check"
import { describe, expect, test } from "vitest"
import { admittedCalls, callKindOf, refusalFaults, scheduleArbitrary } from "./Schedule.ts"

describe("campaign schedules", () => {
  test("each call of the service's own objects has its kind; others none", () => {
    expect(callKindOf("get", "trainingruntimes")).toBe("read-runtime")
    expect(callKindOf("create", "trainingruntimes")).toBe("create-copy")
    expect(callKindOf("patch", "trainingruntimes")).toBe("own")
    expect(callKindOf("delete", "trainingruntimes")).toBe("delete-copy")
    expect(callKindOf("list", "trainingruntimes")).toBe("sweep")
    expect(callKindOf("create", "trainjobs")).toBe("create-trainjob")
    expect(callKindOf("get", "trainjobs")).toBe("read-back")
    expect(callKindOf("patch", "trainjobs")).toBe("patch-trainjob")
    expect(callKindOf("list", "trainjobs")).toBe("sync")
    expect(callKindOf("delete", "trainjobs")).toBe("stop")
    expect(callKindOf("list", "workloads")).toBe("workload")
    expect(callKindOf("get", "pods")).toBeUndefined()
    expect(callKindOf("watch", "trainjobs")).toBeUndefined()
  })

  test("a schedule creates a job first, and a webhook denies only the writes a webhook admits", () => {
    fc.assert(
      fc.property(scheduleArbitrary, (schedule) => {
        expect(schedule.steps[0]?.kind).toBe("create")
        for (const f of schedule.faults) {
          if ((refusalFaults as ReadonlyArray<string>).includes(f.fault)) expect(admittedCalls as ReadonlyArray<string>).toContain(f.call)
        }
        // A schedule is plain JSON: what prints is what replays.
        expect(JSON.parse(JSON.stringify(schedule))).toEqual(schedule)
      })
    )
  })
})
