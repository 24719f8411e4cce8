// The probe's report: which gate decides, and what it says when it cannot clean up.
import { fc, test } from "@fast-check/vitest"
import { Effect, Clock } from "effect"
import { describe, expect, it } from "vitest"
import { PROBE_JOB_ID, trainJobName, runtimeLabel } from "@dispatch/render"
import { CLEANUP_ATTEMPTS, gateOf, probe, type GateProof, PROBE_ROUNDS, probeLifetimeMs } from "../../src/lifecycle/Probe.ts"
import { RETRY_POLICY } from "../../src/RetryPolicy.ts"
import { namespace } from "../StartFixture.ts"
import { inProcess, storedNamed, type World, writesOf } from "./LifecycleFixture.ts"
import { Cluster, type ClusterShape } from "../../src/Cluster.ts"
import { ClusterError } from "../../src/ClusterError.ts"
import { POLL_INTERVAL_MS } from "../../src/PollUntil.ts"
import { TrainJobs } from "../../src/ResourceKind.ts"

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

// The probe's report beyond the happy paths: what a runtime that cannot be read leaves, how a failed
// write is told apart from one that went unanswered, how long it waits for a probe in progress and for a
// late create, how often it tries to remove its objects, and what it says when other probes keep theirs.
describe("the probe's report beyond the happy paths", () => {
  const probeName = trainJobName(PROBE_JOB_ID, 1)
  const notTried = (gate: string) => ({ proven: false, reasons: [`not tried: the ${gate} gate is not proven`] })
  const provenGate = { proven: true, reasons: [] }

  // The probe's TrainJob and copy by name, and any Workload (only the probe makes one here).
  const leftIn = (world: World) => [...storedNamed(world, "trainjobs", probeName), ...storedNamed(world, "trainingruntimes", probeName), ...world.sim.system.list("workloads", namespace)]

  /** The probe on a Cluster changed by `change`. */
  const probeOn = (config: Parameters<typeof probe>[0], change: (cluster: ClusterShape) => ClusterShape) =>
    Effect.flatMap(Cluster, (cluster) => Effect.provideService(probe(config), Cluster, change(cluster)))

  describe("the reach gate", () => {
    it("a configured runtime that does not exist closes the backend, and nothing is written", () =>
      inProcess.run({ mode: "plain" }, (world, config) =>
        Effect.gen(function* () {
          world.sim.system.delete("trainingruntimes", namespace, "team-torch")
          const report = yield* probe(config)
          const reason = `runtime ${runtimeLabel({ kind: "TrainingRuntime", name: "team-torch" })} does not exist`
          expect(report).toEqual({ gate: { state: "closed", reason }, reach: { proven: false, reasons: [reason] }, write: notTried("reach"), launch: notTried("reach"), leftovers: [] })
          expect(writesOf(world.calls)).toEqual([])
        })
      ))

    it("a runtime that cannot be read is named with the read's failure", () =>
      inProcess.run({ mode: "plain", sim: { faults: [{ verb: "get", resource: "clustertrainingruntimes", action: { type: "status", code: 500 } }] } }, (world, config) =>
        Effect.gen(function* () {
          const report = yield* probe(config)
          expect(report.gate.state).toBe("closed")
          expect(report.reach.reasons).toHaveLength(2)
          expect(report.reach.reasons[0]).toBe(`runtime ${runtimeLabel({ kind: "ClusterTrainingRuntime", name: "torch-distributed" })} cannot be read`)
          expect(report.reach.reasons[1]).toMatch(/^get clustertrainingruntimes .*500/)
          expect(writesOf(world.calls)).toEqual([])
        })
      ))
  })

  describe("the write and launch gates", () => {
    it("a create that went unanswered: not reached, the objects not counted as created, the launch not tried", () =>
      inProcess.run({ mode: "plain", sim: { faults: [{ verb: "create", resource: "trainingruntimes", nth: 1, action: { type: "drop" } }] } }, (world, config) =>
        Effect.gen(function* () {
          const report = yield* probe(config)
          const failed = `create trainingruntimes ${namespace}/${probeName}: Unanswered`
          expect(report).toEqual({
            gate: { state: "closed", reason: `the probe's create of trainingruntimes went unanswered; ${failed}` },
            reach: { proven: false, reasons: ["the probe's create of trainingruntimes went unanswered", failed] },
            write: { proven: false, reasons: ["the probe's objects were not created", failed] },
            launch: notTried("write"),
            leftovers: []
          })
          expect(leftIn(world)).toEqual([])
        })
      ))

    it("a create the cluster refuses: observe-only, the gate's reason every reason of the cause", () =>
      inProcess.run({ mode: "plain", sim: { faults: [{ verb: "create", resource: "trainjobs", action: { type: "status", code: 422 } }] } }, (_world, config) =>
        Effect.gen(function* () {
          const report = yield* probe(config)
          expect(report.write.reasons.length).toBeGreaterThan(1)
          expect(report.gate).toEqual({ state: "observe-only", reason: report.write.reasons.join("; ") })
        })
      ))

    it("Kueue mode without Kueue: written, but not launched, with Start's reason", () =>
      inProcess.run({ mode: "kueue", kueue: false }, (_world, config) =>
        Effect.gen(function* () {
          const report = yield* probe(config)
          const reason = "spec.suspend: Kueue's webhook sets true on create, read false: Kueue does not manage this TrainJob"
          expect(report).toEqual({ gate: { state: "observe-only", reason }, reach: provenGate, write: provenGate, launch: { proven: false, reasons: [reason] }, leftovers: [] })
        })
      ))
  })

  describe("removing the probe", () => {
    it(`tries ${CLEANUP_ATTEMPTS} Stops, a second apart (each trying a passing fault ${RETRY_POLICY.tries} times), and reports as soon as the last fails, naming every reason`, () =>
      inProcess.run({ mode: "plain" }, (_world, config) =>
        Effect.gen(function* () {
          const deletedAt: Array<number> = []
          // The API server refuses each delete with a Status naming a cause: two reasons.
          const refused = new ClusterError({ reason: "ServerError", call: `delete trainjobs ${namespace}/${probeName}`, status: { code: 503, reason: "ServiceUnavailable", message: "etcd is unavailable", causes: [{ message: "leader changed" }] } })
          const report = yield* probeOn(config, (cluster) => ({
            ...cluster,
            delete: (kind, key, options) =>
              kind === TrainJobs ? Effect.flatMap(Clock.currentTimeMillis, (now) => (deletedAt.push(now), Effect.fail(refused))) : cluster.delete(kind, key, options)
          }))
          const end = yield* Clock.currentTimeMillis
          expect(deletedAt).toHaveLength(CLEANUP_ATTEMPTS * RETRY_POLICY.tries)
          // Between one Stop's last try and the next Stop's first: the probe's second.
          for (let stop = 1; stop < CLEANUP_ATTEMPTS; stop++) {
            expect(deletedAt[stop * RETRY_POLICY.tries]! - deletedAt[stop * RETRY_POLICY.tries - 1]!).toBeGreaterThanOrEqual(POLL_INTERVAL_MS)
          }
          expect(end).toBe(deletedAt.at(-1))
          expect(refused.reasons).toHaveLength(2)
          expect(report.leftovers).toEqual([`the probe could not be removed: ${refused.reasons.join("; ")}`])
          expect(report).toMatchObject({ gate: { state: "read-only" }, write: { proven: false, reasons: report.leftovers } })
        })
      ))

    it(`a removal that works on its last try leaves the backend open`, () =>
      inProcess.run({ mode: "plain", sim: { faults: [{ verb: "delete", resource: "trainjobs", nth: 1, times: CLEANUP_ATTEMPTS - 1, action: { type: "status", code: 503 } }] } }, (world, config) =>
        Effect.gen(function* () {
          expect(yield* probe(config)).toMatchObject({ gate: { state: "open" }, leftovers: [] })
          expect(leftIn(world)).toEqual([])
        })
      ))

    it("a probe TrainJob that cannot be read counts as no probe in progress: no wait, the removal's failure reported", () =>
      inProcess.run({ mode: "plain", sim: { faults: [{ verb: "get", resource: "trainjobs", name: probeName, action: { type: "status", code: 500 } }] } }, (_world, config) =>
        Effect.gen(function* () {
          const start = yield* Clock.currentTimeMillis
          const report = yield* probe(config)
          // No wait for a probe in progress (probeLifetimeMs): only the seconds between removals, and each read's retries.
          const took = (yield* Clock.currentTimeMillis) - start
          expect(took).toBeGreaterThanOrEqual((CLEANUP_ATTEMPTS - 1) * POLL_INTERVAL_MS)
          expect(took).toBeLessThan(probeLifetimeMs(config))
          expect(report.write.reasons[0]).toBe("an earlier probe could not be removed")
          expect(report).toMatchObject({ gate: { state: "read-only" }, launch: notTried("write") })
        })
      ))

    it("a probe copy without its TrainJob may be a probe in progress: waited for, for probeLifetimeMs, then removed", () =>
      inProcess.run({ mode: "plain", sim: { faults: [{ verb: "create", resource: "trainjobs", action: { type: "status", code: 403 } }, { verb: "delete", resource: "trainingruntimes", action: { type: "status", code: 503 } }] } }, (world, config) =>
        Effect.gen(function* () {
          // The first probe may not create its TrainJob and cannot remove its copy.
          expect((yield* probe(config)).gate.state).toBe("read-only")
          expect(storedNamed(world, "trainingruntimes", probeName)).toHaveLength(1)
          expect(storedNamed(world, "trainjobs", probeName)).toEqual([])
          world.sim.setFaults([])
          const start = yield* Clock.currentTimeMillis
          expect(yield* probe(config)).toMatchObject({ gate: { state: "open" }, leftovers: [] })
          expect((yield* Clock.currentTimeMillis) - start).toBeGreaterThanOrEqual(probeLifetimeMs(config))
          expect(leftIn(world)).toEqual([])
        })
      ))

    it("a TrainJob create answered 504 that lands just before timeouts.callBound is still removed", () =>
      inProcess.run({ mode: "plain", sim: { faults: [{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "status", code: 504 } }] } }, (world, config) =>
        Effect.gen(function* () {
          const sentCreate = () => world.calls.find((c) => c.request.verb === "create" && c.request.resource === "trainjobs")
          const lateLanding = Effect.gen(function* () {
            while (sentCreate() === undefined) yield* Effect.sleep(100)
            yield* Effect.sleep(config.timeouts.callBoundMs - 1000)
            return world.sim.handle(sentCreate()!.request)
          })
          const [report, landing] = yield* Effect.all([probe(config), lateLanding], { concurrency: 2 })
          expect(landing).toMatchObject({ kind: "answered", response: { code: 201 } })
          expect(report).toMatchObject({ gate: { state: "closed" }, leftovers: [] })
          expect(leftIn(world)).toEqual([])
        })
      ))
  })

  describe("other probes in the way", () => {
    it(`a probe whose TrainJob another probe creates first, ${PROBE_ROUNDS} times, gives up naming them and leaves their objects`, () =>
      inProcess.run({ mode: "plain" }, (world, config) =>
        Effect.gen(function* () {
          let creates = 0
          // Each time, another probe's identical TrainJob is created just before this probe's.
          const report = yield* probeOn(config, (cluster) => ({
            ...cluster,
            create: (kind, object) =>
              kind === TrainJobs ? Effect.flatMap(Effect.sync(() => creates++), () => Effect.andThen(Effect.ignore(cluster.create(kind, object)), cluster.create(kind, object))) : cluster.create(kind, object)
          }))
          expect(creates).toBe(PROBE_ROUNDS)
          // Each Start adopted the other probe's TrainJob and succeeded: its reasons are none.
          const write = { proven: false, reasons: [`other probes kept the probe's objects for ${PROBE_ROUNDS} rounds`, "another probe's TrainJob was in the way"] }
          expect(report).toEqual({ gate: { state: "read-only", reason: write.reasons.join("; ") }, reach: provenGate, write, launch: notTried("write"), leftovers: [] })
          expect(storedNamed(world, "trainjobs", probeName)).toHaveLength(1)
        })
      ))
  })
})
