// The sweeper against the simulator on TestClock: what it deletes (an ownerless copy past the grace) and
// what it never does (a young copy, a copy whose TrainJob exists, a copy of a job kept, the probe's, another's),
// under faults on its list, read and delete; each checked in the simulator's store.
import { Effect, Layer } from "effect"
import { fc, test as fcTest } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { labelKeys, PROBE_JOB_ID, trainJobName, type BackendConfig } from "@dispatch/render"
import type { FaultRule, KubeObject } from "@dispatch/sim"
import { openBackend } from "../../src/Backend.ts"
import { InFlight, makeInFlight } from "../../src/InFlight.ts"
import type { KubeResource } from "../../src/KubeObjects.ts"
import { SimCluster } from "@dispatch/sim/cluster"
import { effectiveGraceMs, sweep, sweepCandidates, sweepGraceFloorMs } from "../../src/lifecycle/Sweep.ts"
import { afterCall, backendOf, jobId, namespace, runOnTestClock, simOf, trainJobNameOf } from "../StartFixture.ts"
import { inProcess, lifecycleConfig, started, storedNamed, traced, type World } from "./LifecycleFixture.ts"

const hour = 3_600_000

/** A copy dispatch would have made for job `n` (its labels, the cluster runtime's spec), with no owner, as a
 * Start leaves it between its step 5 and step 7 or when it gave up after step 5. */
const copyOf = (world: World, config: BackendConfig, n: number, labels: Record<string, string> = {}): KubeObject => {
  const runtime = world.sim.system.get("clustertrainingruntimes", undefined, "torch-distributed")!
  const keys = labelKeys(config)
  return {
    apiVersion: String(runtime["apiVersion"]),
    kind: "TrainingRuntime",
    metadata: { name: trainJobNameOf(n), namespace, labels: { [keys.jobId]: jobId(n), [keys.submission]: "1", ...labels } },
    spec: runtime["spec"]
  }
}

const putCopy = (world: World, config: BackendConfig, n: number, labels: Record<string, string> = {}) => {
  const answer = world.sim.system.create("trainingruntimes", copyOf(world, config, n, labels))
  expect(answer.code).toBe(201)
}

const uidOf = (world: World, name: string) => String(storedNamed(world, "trainingruntimes", name)[0]?.metadata?.["uid"])

const deletesOf = (world: World) => world.calls.filter((c) => c.request.verb === "delete" && c.request.resource === "trainingruntimes")

describe("the sweeper deletes ownerless copies past the grace, and nothing else", () => {
  it("an orphan past the grace is deleted with its UID as precondition; a young one is kept until it is old enough", () =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        const graceMs = sweepGraceFloorMs(config) + 1000
        putCopy(world, config, 1)
        const uid = uidOf(world, trainJobNameOf(1))
        yield* Effect.sleep(graceMs - 1)
        expect(yield* sweep(openBackend(config), { graceMs })).toEqual({ deleted: [], failed: [] })
        expect(storedNamed(world, "trainingruntimes", trainJobNameOf(1))).toHaveLength(1)
        expect(deletesOf(world)).toEqual([])
        yield* Effect.sleep(1)
        const swept = yield* sweep(openBackend(config), { graceMs })
        expect(swept).toEqual({ deleted: [{ namespace, name: trainJobNameOf(1), uid, job: jobId(1), ageMs: graceMs }], failed: [] })
        expect(storedNamed(world, "trainingruntimes", trainJobNameOf(1))).toEqual([])
        expect(deletesOf(world).map((c) => (c.request.body as { preconditions?: unknown }).preconditions)).toEqual([{ uid }])
      })
    ))

  it("a grace below the floor is raised to it: a copy younger than the floor is never swept", () =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        expect(sweepGraceFloorMs(config)).toBe(2 * config.timeouts.callBoundMs + config.timeouts.workloadMs)
        expect(effectiveGraceMs(config, 0)).toBe(sweepGraceFloorMs(config))
        putCopy(world, config, 1)
        yield* Effect.sleep(sweepGraceFloorMs(config) - 1000)
        expect((yield* sweep(openBackend(config), { graceMs: 0 })).deleted).toEqual([])
        expect(storedNamed(world, "trainingruntimes", trainJobNameOf(1))).toHaveLength(1)
        yield* Effect.sleep(1000)
        expect((yield* sweep(openBackend(config), { graceMs: 0 })).deleted.map((d) => d.name)).toEqual([trainJobNameOf(1)])
      })
    ))

  it("a copy owned by its live TrainJob, and one whose TrainJob exists but has not owned it yet (a Start between steps 6 and 7), are kept", () =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        yield* started(config, 1)
        yield* started(config, 2)
        // Job 2's Start is caught between its TrainJob create and its owner patch: the copy has no owner yet.
        const copy = world.sim.system.get("trainingruntimes", namespace, trainJobNameOf(2))!
        const { ownerReferences: _, ...metadata } = copy.metadata as Record<string, unknown>
        expect(world.sim.system.update("trainingruntimes", { ...copy, metadata }).code).toBe(200)
        yield* Effect.sleep(sweepGraceFloorMs(config))
        expect(yield* sweep(openBackend(config), { graceMs: 0 })).toEqual({ deleted: [], failed: [] })
        expect(storedNamed(world, "trainingruntimes", trainJobNameOf(1))).toHaveLength(1)
        expect(storedNamed(world, "trainingruntimes", trainJobNameOf(2))).toHaveLength(1)
        expect(deletesOf(world)).toEqual([])
      })
    ))

  it("a kept job's copy, the probe's copy, and copies without dispatch's label are left alone", () =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        putCopy(world, config, 1)
        putCopy(world, config, 2)
        const probe = copyOf(world, config, 3)
        const probeName = trainJobName(PROBE_JOB_ID, 1)
        world.sim.system.create("trainingruntimes", { ...probe, metadata: { name: probeName, namespace, labels: { [labelKeys(config).jobId]: PROBE_JOB_ID } } })
        world.sim.system.create("trainingruntimes", { ...probe, metadata: { name: "someone-elses", namespace, labels: { app: "x" } } })
        yield* Effect.sleep(sweepGraceFloorMs(config))
        const swept = yield* sweep(openBackend(config), { graceMs: 0, keep: (job) => job === jobId(2) })
        expect(swept.deleted.map((d) => d.job)).toEqual([jobId(1)])
        expect(storedNamed(world, "trainingruntimes", trainJobNameOf(2))).toHaveLength(1)
        expect(storedNamed(world, "trainingruntimes", probeName)).toHaveLength(1)
        expect(storedNamed(world, "trainingruntimes", "someone-elses")).toHaveLength(1)
      })
    ))

  it("a backend that may not write refuses the sweep before any call", async () => {
    const recorded = simOf()
    const config = lifecycleConfig("plain", inProcess.timing)
    const layer = Layer.merge(SimCluster(recorded.face, { callMs: config.timeouts.callMs }), Layer.succeed(InFlight, makeInFlight()))
    const exit = await runOnTestClock(Effect.flip(sweep(backendOf(config, { state: "read-only", reason: "no write" }), { graceMs: 0 })).pipe(Effect.provide(layer)))
    expect(exit._tag === "Success" && exit.value._tag).toBe("ErrReadOnly")
    expect(recorded.calls).toEqual([])
  })
})

describe("the sweeper under faults", () => {
  /** Job 1's ownerless copy, past the grace, then the faults. */
  const orphanPastGrace = (world: World, config: BackendConfig, faults: ReadonlyArray<FaultRule>) =>
    Effect.gen(function* () {
      putCopy(world, config, 1)
      yield* Effect.sleep(sweepGraceFloorMs(config))
      world.sim.setFaults(faults)
    })

  const sweepNow = (config: BackendConfig) => sweep(openBackend(config), { graceMs: 0 })

  it.each([
    ["503", { type: "status", code: 503 }, "ErrUnreachable"],
    ["403", { type: "status", code: 403 }, "ErrUnsupported"],
    ["unanswered", { type: "drop" }, "ErrUnreachable"],
    ["404", { type: "status", code: 404 }, "ErrUnreachable"],
    ["409", { type: "status", code: 409 }, "ErrUnreachable"]
  ])("a list answered %s fails the sweep, and nothing is deleted", (_, action, tag) =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        yield* orphanPastGrace(world, config, [{ verb: "list", resource: "trainingruntimes", action: action as never }])
        const error = yield* Effect.flip(sweepNow(config))
        expect(error._tag).toBe(tag)
        expect(storedNamed(world, "trainingruntimes", trainJobNameOf(1))).toHaveLength(1)
        expect(deletesOf(world)).toEqual([])
        world.sim.setFaults([])
        expect((yield* sweepNow(config)).deleted).toHaveLength(1)
        expect(storedNamed(world, "trainingruntimes", trainJobNameOf(1))).toEqual([])
      })
    ))

  it("a TrainJob read answered 503 keeps the copy and reports it; the next sweep deletes it", () =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        yield* orphanPastGrace(world, config, [{ verb: "get", resource: "trainjobs", action: { type: "status", code: 503 } }])
        const first = yield* sweepNow(config)
        expect(first.deleted).toEqual([])
        expect(first.failed).toEqual([expect.stringContaining(`TrainingRuntime ${namespace}/${trainJobNameOf(1)}: its TrainJob could not be read`)])
        expect(deletesOf(world)).toEqual([])
        world.sim.setFaults([])
        expect((yield* sweepNow(config)).deleted).toHaveLength(1)
      })
    ))

  it("a delete answered 503 is reported and the copy stays; the next sweep deletes it", () =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        yield* orphanPastGrace(world, config, [{ verb: "delete", resource: "trainingruntimes", action: { type: "status", code: 503 } }])
        const first = yield* sweepNow(config)
        expect(first).toEqual({ deleted: [], failed: [expect.stringContaining("delete failed (ServerError)")] })
        expect(storedNamed(world, "trainingruntimes", trainJobNameOf(1))).toHaveLength(1)
        world.sim.setFaults([])
        expect((yield* sweepNow(config)).deleted).toHaveLength(1)
        expect(storedNamed(world, "trainingruntimes", trainJobNameOf(1))).toEqual([])
      })
    ))

  it("a delete that lands unanswered is reported as failed; the next sweep finds nothing left and reports nothing", () =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        yield* orphanPastGrace(world, config, [{ verb: "delete", resource: "trainingruntimes", action: { type: "drop" } }])
        const first = yield* sweepNow(config)
        expect(first).toEqual({ deleted: [], failed: [expect.stringContaining("delete failed (Unanswered)")] })
        expect(storedNamed(world, "trainingruntimes", trainJobNameOf(1))).toEqual([])
        world.sim.setFaults([])
        expect(yield* sweepNow(config)).toEqual({ deleted: [], failed: [] })
      })
    ))

  it.each([
    ["409", 409],
    ["404", 404]
  ])("a delete answered %s is neither a deletion nor a failure: the copy changed or went meanwhile", (_, code) =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        yield* orphanPastGrace(world, config, [{ verb: "delete", resource: "trainingruntimes", action: { type: "status", code } }])
        expect(yield* sweepNow(config)).toEqual({ deleted: [], failed: [] })
        // The fault applied nothing: the copy is still stored, for the next sweep to decide again.
        expect(storedNamed(world, "trainingruntimes", trainJobNameOf(1))).toHaveLength(1)
        expect(deletesOf(world)).toHaveLength(1)
      })
    ))

  it("a copy re-created between the sweeper's list and its delete is not taken: the UID precondition refuses it", async () => {
    const config = lifecycleConfig("plain", inProcess.timing)
    const base = simOf()
    const world: World = { sim: base.sim, calls: [] }
    const name = trainJobNameOf(1)
    // Right after the sweeper reads the TrainJob (absent), a new Start of the job deletes and re-makes the copy.
    const recreated = afterCall(
      base,
      "list",
      "trainingruntimes",
      () => {
        expect(base.sim.system.delete("trainingruntimes", namespace, name).code).toBe(200)
        putCopy(world, config, 1)
      },
      true
    )
    putCopy(world, config, 1)
    const oldUid = uidOf(world, name)
    const layer = Layer.merge(SimCluster(recreated.face, { callMs: config.timeouts.callMs }), Layer.succeed(InFlight, makeInFlight()))
    const exit = await runOnTestClock(
      Effect.gen(function* () {
        yield* Effect.sleep(sweepGraceFloorMs(config))
        return yield* sweep(openBackend(config), { graceMs: 0 })
      }).pipe(Effect.provide(layer))
    )
    expect(exit._tag === "Success" && exit.value).toEqual({ deleted: [], failed: [] })
    const stored = base.sim.system.list("trainingruntimes", namespace).filter((o) => o.metadata?.["name"] === name)
    expect(stored).toHaveLength(1)
    expect(stored[0]?.metadata?.["uid"]).not.toBe(oldUid)
    const deletes = base.calls.filter((c) => c.request.verb === "delete" && c.request.resource === "trainingruntimes")
    expect(deletes.map((c) => c.outcome.kind === "answered" && c.outcome.response.code)).toEqual([409])
  })
})

// The pure choice, against a model written from its doc comment.
describe("sweepCandidates", () => {
  const config = lifecycleConfig("plain", inProcess.timing)
  const jobLabel = labelKeys(config).jobId
  const now = Date.parse("2026-06-01T00:00:00Z")
  const copyArb = fc.record({
    n: fc.integer({ min: 1, max: 5 }),
    label: fc.constantFrom("job", "probe", "none"),
    ageMs: fc.option(fc.integer({ min: -1000, max: 3 * hour }), { nil: undefined }),
    deleting: fc.boolean(),
    uid: fc.boolean(),
    owner: fc.constantFrom("none" as const, "its TrainJob" as const, "another TrainJob" as const, "a Deployment" as const)
  })
  type CopyCase = { readonly n: number; readonly label: string; readonly ageMs: number | undefined; readonly deleting: boolean; readonly uid: boolean; readonly owner: "none" | "its TrainJob" | "another TrainJob" | "a Deployment" }
  const resourceOf = (c: CopyCase): KubeResource => {
    const name = trainJobNameOf(c.n)
    const job = c.label === "job" ? jobId(c.n) : c.label === "probe" ? PROBE_JOB_ID : undefined
    const owners: ReadonlyArray<{ readonly kind: string; readonly name: string }> = { none: [], "its TrainJob": [{ kind: "TrainJob", name }], "another TrainJob": [{ kind: "TrainJob", name: "other" }], "a Deployment": [{ kind: "Deployment", name }] }[c.owner]!
    return {
      apiVersion: "trainer.kubeflow.org/v1alpha1",
      kind: "TrainingRuntime",
      metadata: {
        name,
        namespace,
        ...(c.uid ? { uid: `uid-${c.n}` } : {}),
        ...(job === undefined ? { labels: { app: "x" } } : { labels: { [jobLabel]: job } }),
        ...(c.deleting ? { deletionTimestamp: new Date(now).toISOString() } : {}),
        ownerReferences: owners.map((o) => ({ apiVersion: "v1", uid: "u", ...o })),
        ...(c.ageMs === undefined ? {} : { creationTimestamp: new Date(now - c.ageMs).toISOString() })
      }
    }
  }

  fcTest.prop([fc.array(copyArb, { maxLength: 8 }), fc.integer({ min: 0, max: 2 * hour }), fc.integer({ min: 1, max: 5 })])(
    "picks exactly the labelled, unkept, undeleted copies owned by nothing but their TrainJob and at least the grace old",
    (copies, graceMs, kept) => {
      const resources = copies.map(resourceOf)
      const picked = sweepCandidates(config, resources, now, graceMs, (job) => job === jobId(kept))
      const expected = copies.filter(
        (c, i) =>
          c.label === "job" &&
          c.n !== kept &&
          !c.deleting &&
          c.uid &&
          (c.owner === "none" || c.owner === "its TrainJob") &&
          c.ageMs !== undefined &&
          c.ageMs >= graceMs &&
          resources[i] !== undefined
      )
      expect(picked).toEqual(copies.flatMap((c, i) => (expected.includes(c) ? [resources[i]] : [])))
    }
  )

  it("a creationTimestamp missing, not a string, or that does not parse is never old enough; a copy without labels is not dispatch's", () => {
    const copy = (extra: Record<string, unknown>, labels: Record<string, string> | null = { [jobLabel]: jobId(1) }): KubeResource => ({
      apiVersion: "v1",
      kind: "TrainingRuntime",
      metadata: { name: "x", uid: "u", ...(labels === null ? {} : { labels }), ...extra }
    })
    for (const stamp of [{}, { creationTimestamp: "yesterday" }, { creationTimestamp: 5 }]) expect(sweepCandidates(config, [copy(stamp)], now, 0)).toEqual([])
    expect(sweepCandidates(config, [copy({ creationTimestamp: new Date(now).toISOString() }, null)], now, 0)).toEqual([])
    const due = copy({ creationTimestamp: new Date(now).toISOString() })
    expect(sweepCandidates(config, [due], now, 0)).toEqual([due])
    expect(sweepCandidates(config, [due], now, 0, () => false)).toEqual([due])
  })

  it("a sweep is one span, dispatch.sweep, naming its namespace", () =>
    inProcess.run({ mode: "plain" }, (_, config) =>
      Effect.gen(function* () {
        const { spans } = yield* traced(sweep(openBackend(config), { graceMs: 0 }))
        expect(spans.filter((s) => s.name.startsWith("dispatch."))).toEqual([{ name: "dispatch.sweep", attributes: { "dispatch.namespace": namespace } }])
      })
    ))
})
