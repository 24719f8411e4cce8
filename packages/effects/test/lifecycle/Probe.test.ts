// The probe's report: which gate decides, and what it says when it cannot clean up.
import { fc, test } from "@fast-check/vitest"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { PROBE_JOB_ID, trainJobName } from "@dispatch/render"
import { gateOf, probe, type GateProof } from "../../src/lifecycle/Probe.ts"
import { namespace } from "../StartFixture.ts"
import { inProcess } from "./LifecycleFixture.ts"

const proof: fc.Arbitrary<GateProof> = fc.oneof(
  fc.constant({ proven: true, reasons: [] }),
  fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 3 }).map((reasons) => ({ proven: false, reasons }))
)

describe("gateOf", () => {
  test.prop([proof, proof, proof])("the first gate not proven decides the state, with its reasons", (reach, write, launch) => {
    const gate = gateOf(reach, write, launch)
    const first = [["closed", reach], ["read-only", write], ["observe-only", launch]].find(([, p]) => !(p as GateProof).proven) as [string, GateProof] | undefined
    if (first === undefined) expect(gate).toEqual({ state: "open" })
    else expect(gate).toEqual({ state: first[0], reason: first[1].reasons.join("; ") })
  })
})

describe("probe", () => {
  const probeName = trainJobName(PROBE_JOB_ID, 1)

  it("lists the objects it could not remove, and the next probe names the earlier one before refusing", async () => {
    const reports = await inProcess.run({ mode: "plain", sim: { faults: [{ verb: "delete", resource: "trainjobs", action: { type: "status", code: 503 } }] } }, (world, config) =>
      Effect.gen(function* () {
        const first = yield* probe(config)
        const second = yield* probe(config)
        return { first, second, left: world.sim.system.list("trainjobs", namespace).map((o) => o.metadata?.["name"]) }
      })
    )
    expect(reports.first.gate.state).toBe("read-only")
    expect(reports.first.write.proven).toBe(false)
    expect(reports.first.launch.proven).toBe(true)
    expect(reports.first.leftovers.join(" ")).toContain("the probe could not be removed")
    expect(reports.second.write.reasons[0]).toBe("an earlier probe could not be removed")
    // What stays is the probe alone, suspended: it can never run.
    expect(reports.left).toEqual([probeName])
  })

  it("removes an earlier probe before proving the gates again", async () => {
    const report = await inProcess.run({ mode: "plain", sim: { faults: [{ verb: "delete", resource: "trainjobs", nth: 1, times: 3, action: { type: "status", code: 503 } }] } }, (world, config) =>
      Effect.gen(function* () {
        expect((yield* probe(config)).gate.state).toBe("read-only")
        const again = yield* probe(config)
        expect(world.sim.system.list("trainjobs", namespace)).toEqual([])
        return again
      })
    )
    expect(report).toMatchObject({ gate: { state: "open" }, leftovers: [] })
  })
})
