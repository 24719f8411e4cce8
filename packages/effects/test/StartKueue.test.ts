// Step 9 on TestClock: the Workload wait, with the simulator's Kueue (workloadDelayMs) for timing and a
// scripted Kueue for Workloads that lack the gate or the check.
import { describe, expect, it } from "vitest"
import { admissionGateName } from "@dispatch/render"
import { admissionGatedBy } from "@dispatch/kube"
import { backendOf, configOf, errorOf, namespace, requestOf, runStart, scriptedKueue, simOf, stored, suspendOnCreate, trainJobNameOf, valueOf } from "./StartFixture.ts"

const kueue = configOf("kueue")
const backend = backendOf(kueue)
const name1 = trainJobNameOf(1)

const simKueue = (workloadDelayMs: number) =>
  simOf({ controllers: { kueue: { workloadDelayMs, queues: { "team-queue": { admissionChecks: ["dispatch-check"] } } } } })

describe("Start, step 8 in Kueue mode", () => {
  it("refuses a new TrainJob that Kueue did not suspend (Kueue does not manage it), without waiting for a Workload", async () => {
    const recorded = simOf()
    const error = errorOf(await runStart(recorded, backend, requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(error.reasons.join(" ")).toContain("spec.suspend")
    expect(recorded.calls.filter((c) => c.request.verb === "list")).toEqual([])
    expect(stored(recorded, "trainjobs")).toEqual([])
    expect(recorded.sim.system.get("trainingruntimes", namespace, name1)).toBeUndefined()
  })
})

describe("Start, step 9: the Kueue Workload", () => {
  it("passes when the Workload appears at 29 s with timeouts.workload 30 s, leaving the job gated", async () => {
    const recorded = simKueue(29_000)
    const result = valueOf(await runStart(recorded, backend, requestOf(1)))
    expect(result.name).toBe(name1)
    const workloads = stored(recorded, "workloads")
    expect(workloads).toHaveLength(1)
    expect((workloads[0]?.metadata?.["annotations"] as Record<string, string>)[admissionGatedBy]).toContain(admissionGateName(kueue))
    expect((stored(recorded, "trainjobs")[0]?.["spec"] as Record<string, unknown>)["suspend"]).toBe(true)
    const lists = recorded.calls.filter((c) => c.request.verb === "list")
    expect(lists.length).toBeGreaterThanOrEqual(29)
    expect(lists.length).toBeLessThanOrEqual(31)
  })

  it("fails when the Workload appears only at 31 s: ErrRejected, and the TrainJob and copy are stopped", async () => {
    const recorded = simKueue(31_000)
    const error = errorOf(await runStart(recorded, backend, requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(error.reasons.join(" ")).toContain("no Workload exists")
    expect(error).toMatchObject({ ref: { namespace, name: name1 } })
    expect(stored(recorded, "trainjobs")).toEqual([])
    expect(recorded.sim.system.get("trainingruntimes", namespace, name1)).toBeUndefined()
  })

  it.each([
    ["without dispatch's gate", { gate: false, check: true }, "admission gate"],
    ["without the admission check", { gate: true, check: false }, "admission check"]
  ] as const)("fails for a Workload %s, and stops the TrainJob", async (_, options, words) => {
    const recorded = simOf()
    suspendOnCreate(recorded)
    recorded.sim.addController(scriptedKueue(options))
    const error = errorOf(await runStart(recorded, backend, requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(error.reasons.join(" ")).toContain(words)
    expect(stored(recorded, "trainjobs")).toEqual([])
  })

  it("passes with the scripted Kueue when the Workload has both", async () => {
    const recorded = simOf()
    suspendOnCreate(recorded)
    recorded.sim.addController(scriptedKueue({ gate: true, check: true }))
    valueOf(await runStart(recorded, backend, requestOf(1)))
    expect(stored(recorded, "trainjobs")).toHaveLength(1)
  })
})
