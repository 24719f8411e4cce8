// The probe's report: which gate decides, and what it says when it cannot clean up.
import { fc, test } from "@fast-check/vitest"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { PROBE_JOB_ID, trainJobName } from "@dispatch/render"
import { CLEANUP_ATTEMPTS, gateOf, probe, type GateProof } from "../../src/lifecycle/Probe.ts"
import { RETRY_POLICY } from "../../src/RetryPolicy.ts"
import { namespace } from "../StartFixture.ts"
import { inProcess, storedNamed, type World } from "./LifecycleFixture.ts"

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
    const report = await inProcess.run({ mode: "plain", sim: { faults: [{ verb: "delete", resource: "trainjobs", nth: 1, times: CLEANUP_ATTEMPTS * RETRY_POLICY.tries, action: { type: "status", code: 503 } }] } }, (world, config) =>
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

describe("probe: concurrency and unanswered creates", () => {
  const probeName = trainJobName(PROBE_JOB_ID, 1)
  // The probe's TrainJob and copy by name, and any Workload (only the probe makes one here).
  const leftIn = (world: World) => [
    ...storedNamed(world, "trainjobs", probeName),
    ...storedNamed(world, "trainingruntimes", probeName),
    ...world.sim.system.list("workloads", namespace)
  ]

  for (const mode of ["plain", "kueue"] as const) {
    it(`${mode}: two probes at once both prove the gates, and leave nothing behind`, async () => {
      const reports = await inProcess.run({ mode }, (world, config) =>
        Effect.gen(function* () {
          const both = yield* Effect.all([probe(config), probe(config)], { concurrency: 2 })
          return { both, left: leftIn(world) }
        })
      )
      expect(reports.both.map((r) => r.gate)).toEqual([{ state: "open" }, { state: "open" }])
      expect(reports.left).toEqual([])
    })
  }

  it("a probe whose TrainJob create goes unanswered says the cluster was not reached, not read-only, and removes what landed", async () => {
    const report = await inProcess.run({ mode: "plain", sim: { faults: [{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "drop" } }] } }, (world, config) =>
      Effect.gen(function* () {
        const report = yield* probe(config)
        return { report, left: leftIn(world) }
      })
    )
    expect(report.report.gate.state).toBe("closed")
    expect(report.report.reach.reasons[0]).toBe("the probe's create of trainjobs went unanswered")
    expect(report.report.leftovers).toEqual([])
    expect(report.left).toEqual([])
  })

  it("a TrainJob create that lands after the probe gave up on it is still removed (waits out timeouts.callBound)", async () => {
    // The create is answered 504 (it may still be processed); the server applies it 1 s later, while
    // a removal that did not wait would be between its read of the TrainJob and its delete of the copy
    // (that copy read is slowed by 3 s, so the landing passes the webhook's runtimeRef check).
    const faults = [
      { verb: "create" as const, resource: "trainjobs", nth: 1, action: { type: "status" as const, code: 504 } },
      { verb: "get" as const, resource: "trainingruntimes", name: probeName, nth: 3, action: { type: "delay" as const, ms: 3000 } }
    ]
    const report = await inProcess.run({ mode: "plain", sim: { faults } }, (world, config) =>
      Effect.gen(function* () {
        const sentCreate = () => world.calls.find((c) => c.request.verb === "create" && c.request.resource === "trainjobs")
        const lateLanding = Effect.gen(function* () {
          for (let waited = 0; waited < 600 && sentCreate() === undefined; waited++) yield* Effect.sleep(100)
          const sent = sentCreate()
          yield* Effect.sleep(1000)
          return sent === undefined ? undefined : world.sim.handle(sent.request)
        })
        const [report, landing] = yield* Effect.all([probe(config), lateLanding], { concurrency: 2 })
        return { report, landing, left: leftIn(world) }
      })
    )
    expect(report.landing).toMatchObject({ kind: "answered", response: { code: 201 } })
    expect(report.left).toEqual([])
    expect(report.report.gate.state).toBe("closed")
    expect(report.report.leftovers).toEqual([])
  })
})
