// Open, Hold and Release beyond the scenarios: what each leaves on the Workload (the gate list, the check
// and its message, which Find and operators read), that a concurrent writer's change is never
// overwritten (every write carries the read's resourceVersion), the wait for a Workload Kueue never
// makes, and each refusal, naming the transition and the object.
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { admissionGateName, type BackendConfig } from "@dispatch/render"
import { openBackend } from "../../src/Backend.ts"
import { Cluster, type ClusterShape } from "../../src/Cluster.ts"
import { TrainJobs } from "../../src/ResourceKind.ts"
import { HOLD_MESSAGE, READY_MESSAGE, RETRY_MESSAGE } from "../../src/lifecycle/AdmissionChecks.ts"
import { find } from "../../src/lifecycle/Find.ts"
import { hold, open, release } from "../../src/lifecycle/Transitions.ts"
import { backendOf, namespace, trainJobNameOf } from "../StartFixture.ts"
import { awaitState, createWorkload, inProcess, keyOf, lifecycleConfig, started, type World, workloadsOf, writesOf } from "./LifecycleFixture.ts"

const gateAnnotation = "kueue.x-k8s.io/admission-gated-by"

type Stored = Record<string, unknown> & { metadata?: Record<string, unknown> }

const workloadOf = (world: World, n: number): Stored => {
  const found = workloadsOf(world, trainJobNameOf(n))[0]
  if (found === undefined) throw new Error(`job ${n} has no Workload`)
  return found as Stored
}

const annotationsOf = (object: Stored) => (object.metadata?.["annotations"] ?? {}) as Record<string, string>

const checksOf = (object: Stored) => ((object["status"] as { admissionChecks?: ReadonlyArray<Record<string, unknown>> } | undefined)?.admissionChecks ?? [])

const checkOf = (object: Stored, name: string) => checksOf(object).find((c) => c["name"] === name)

/** The Cluster, with `before` run in the store just before the first merge patch of `plural`: another
 * writer acting between Open's read and its write. */
const racing = (plural: string, before: () => void) =>
  Effect.map(Cluster, (cluster): ClusterShape => {
    let raced = false
    return {
      ...cluster,
      mergePatch: (kind, key, patch, options) =>
        Effect.suspend(() => {
          if (!raced && kind.plural === plural) {
            raced = true
            before()
          }
          return cluster.mergePatch(kind, key, patch, options)
        })
    }
  })

const withCluster = <A, E, R>(shape: ClusterShape, effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, Cluster, shape)

describe("Kueue mode: what Open writes on the Workload", () => {
  it("removes dispatch's gate annotation from the Workload and sets dispatch's check Ready", () =>
    inProcess.run({ mode: "kueue" }, (world, config) =>
      Effect.gen(function* () {
        yield* started(config, 1)
        expect(annotationsOf(workloadOf(world, 1))[gateAnnotation]).toBe(admissionGateName(config))
        yield* open(openBackend(config), keyOf(1))
        expect(annotationsOf(workloadOf(world, 1))).not.toHaveProperty(gateAnnotation)
        expect(checkOf(workloadOf(world, 1), "dispatch-check")).toMatchObject({ state: "Ready", message: READY_MESSAGE })
      })
    ))

  it("never overwrites another admission check's state set after Open read the Workload", () =>
    inProcess.run({ mode: "kueue" }, (world, config) =>
      Effect.gen(function* () {
        yield* started(config, 1)
        const w = workloadOf(world, 1)
        // Open's first write removes the gate; the check moves on a later write, which another controller races.
        world.sim.system.update("workloads", { ...w, metadata: { ...w.metadata, annotations: {} } })
        const ungated = workloadOf(world, 1)
        const status = (ungated["status"] ?? {}) as Record<string, unknown>
        world.sim.system.updateStatus("workloads", { ...ungated, status: { ...status, admissionChecks: [...checksOf(ungated), { name: "other-check", state: "Pending", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" }] } })
        const cluster = yield* racing("workloads", () => {
          const now = workloadOf(world, 1)
          const checks = checksOf(now).map((c) => (c["name"] === "other-check" ? { ...c, state: "Ready", message: "approved" } : c))
          world.sim.system.updateStatus("workloads", { ...now, status: { ...(now["status"] as object), admissionChecks: checks } })
        })
        yield* withCluster(cluster, open(openBackend(config), keyOf(1)))
        const after = workloadOf(world, 1)
        expect(checkOf(after, "other-check")).toMatchObject({ state: "Ready", message: "approved" })
        expect(checkOf(after, "dispatch-check")).toMatchObject({ state: "Ready", message: READY_MESSAGE })
      })
    ))
})

describe("Kueue mode: Hold and Release on the admission check", () => {
  it("Hold of a job Kueue has not admitted sets the check Pending with the hold message; Release sets it Ready", () =>
    inProcess.run({ mode: "kueue" }, (world, config) =>
      Effect.gen(function* () {
        const backend = openBackend(config)
        yield* started(config, 1)
        yield* hold(backend, keyOf(1))
        // No eviction is asked of a Workload that is not admitted.
        const patches = world.calls.filter((c) => c.request.verb === "patch" && c.request.resource === "workloads")
        expect(JSON.stringify(patches.map((c) => c.request.body))).not.toContain(RETRY_MESSAGE)
        expect(checkOf(workloadOf(world, 1), "dispatch-check")).toMatchObject({ state: "Pending", message: HOLD_MESSAGE })
        expect((yield* find(backend, keyOf(1))).state).toBe("Held")
        yield* release(backend, keyOf(1))
        expect(checkOf(workloadOf(world, 1), "dispatch-check")).toMatchObject({ state: "Ready", message: READY_MESSAGE })
      })
    ))

  it("Hold of a running job asks Kueue to evict it (Retry), waits for Kueue, and ends Pending with the hold message", () =>
    inProcess.run({ mode: "kueue" }, (world, config) =>
      Effect.gen(function* () {
        const backend = openBackend(config)
        yield* started(config, 1)
        yield* open(backend, keyOf(1))
        yield* awaitState(backend, keyOf(1), "Running", 10_000)
        yield* hold(backend, keyOf(1))
        const bodies = world.calls.filter((c) => c.request.verb === "patch" && c.request.resource === "workloads" && c.request.subresource === "status").map((c) => JSON.stringify(c.request.body))
        expect(bodies.some((b) => b.includes(`"state":"Retry"`) && b.includes(RETRY_MESSAGE))).toBe(true)
        expect(checkOf(workloadOf(world, 1), "dispatch-check")).toMatchObject({ state: "Pending", message: HOLD_MESSAGE })
        const job = world.sim.system.get("trainjobs", namespace, trainJobNameOf(1)) as Stored
        expect((job["spec"] as Record<string, unknown>)["suspend"]).toBe(true)
      })
    ))

  it("every transition waits for a Workload Kueue never makes, up to timeouts.workload, then refuses naming the wait", () =>
    // A TrainJob in a cluster where Kueue does not run, acted on by a Kueue-mode backend.
    inProcess.run({ mode: "plain" }, (world, plain) =>
      Effect.gen(function* () {
        yield* started(plain, 1)
        const kueue: BackendConfig = lifecycleConfig("kueue", inProcess.timing)
        for (const transition of [open, hold, release]) {
          const before = world.calls.length
          const error = yield* Effect.flip(transition(openBackend(kueue), keyOf(1)))
          expect(error._tag).toBe("ErrRejected")
          expect(error.reasons.join(" ")).toContain(`still waiting after ${kueue.timeouts.workloadMs} ms: Kueue has not made the TrainJob's Workload`)
          // It read about once a second for the whole wait, not once and not without pause.
          const reads = world.calls.slice(before).filter((c) => c.request.resource === "trainjobs").length
          expect(reads).toBeGreaterThanOrEqual(kueue.timeouts.workloadMs / 1000)
          expect(reads).toBeLessThanOrEqual(kueue.timeouts.workloadMs / 1000 + 2)
        }
      })
    ))
})

describe("refusals name the transition and the object", () => {
  const name = trainJobNameOf(1)

  it("no TrainJob: each transition is ErrRejected saying none exists, without a write", () =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        for (const [which, transition] of [["open", open], ["hold", hold], ["release", release]] as const) {
          const error = yield* Effect.flip(transition(openBackend(config), keyOf(1)))
          expect(error._tag).toBe("ErrRejected")
          expect(error.reasons).toEqual([`${which}: no TrainJob ${namespace}/${name} exists`])
        }
        expect(world.calls.filter((c) => c.request.verb !== "get")).toEqual([])
      })
    ))

  it("a TrainJob being deleted: refused, naming it and its UID, without a write", () =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        const result = yield* started(config, 1)
        const stored = world.sim.system.get("trainjobs", namespace, name)!
        world.sim.system.update("trainjobs", { ...stored, metadata: { ...stored.metadata, finalizers: ["example.com/keep"] } })
        const cluster = yield* Cluster
        yield* cluster.delete(TrainJobs, { namespace, name })
        const before = world.calls.length
        for (const [which, transition] of [["open", open], ["hold", hold], ["release", release]] as const) {
          const error = yield* Effect.flip(transition(openBackend(config), keyOf(1)))
          expect(error._tag).toBe("ErrRejected")
          expect(error.reasons).toEqual([`${which}: the TrainJob ${namespace}/${name} is being deleted`])
          expect(error).toMatchObject({ ref: { namespace, name, uid: result.uid } })
        }
        expect(world.calls.slice(before).filter((c) => c.request.verb !== "get")).toEqual([])
      })
    ))

  it("a TrainJob of the job's name that dispatch did not make is never changed", () =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        yield* started(config, 1)
        const stored = world.sim.system.get("trainjobs", namespace, name)!
        world.sim.system.update("trainjobs", { ...stored, metadata: { ...stored.metadata, labels: {} } })
        const error = yield* Effect.flip(open(openBackend(config), keyOf(1)))
        expect(error._tag).toBe("ErrRejected")
        expect(error.reasons.join(" ")).toContain("dispatch did not make it")
        expect((world.sim.system.get("trainjobs", namespace, name)!["spec"] as Record<string, unknown>)["suspend"]).toBe(true)
      })
    ))

  it("gates: Release needs launch (refused on observe-only), Hold needs write (refused on read-only), none runs on closed", () =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        yield* started(config, 1)
        const before = world.calls.length
        const tagOf = (effect: Effect.Effect<unknown, { readonly _tag: string }, Cluster>) => Effect.map(Effect.flip(effect), (e) => e._tag)
        expect(yield* tagOf(release(backendOf(config, { state: "observe-only", reason: "x" }), keyOf(1)))).toBe("ErrUnsupported")
        expect(yield* tagOf(open(backendOf(config, { state: "read-only", reason: "x" }), keyOf(1)))).toBe("ErrReadOnly")
        expect(yield* tagOf(hold(backendOf(config, { state: "read-only", reason: "x" }), keyOf(1)))).toBe("ErrReadOnly")
        const closed = backendOf(config, { state: "closed", reason: "x" })
        for (const transition of [open, hold, release]) expect(yield* tagOf(transition(closed, keyOf(1)))).toBe("ErrUnreachable")
        expect(world.calls.slice(before)).toEqual([])
      })
    ))
})

describe("plain mode: Open and Hold", () => {
  it("write only spec.suspend, and Hold then Open returns the job to running", () =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        const backend = openBackend(config)
        const result = yield* started(config, 1)
        const opened = yield* open(backend, keyOf(1))
        expect(opened).toEqual({ namespace, name: result.name, uid: result.uid })
        const held = yield* hold(backend, keyOf(1))
        expect(held.uid).toBe(result.uid)
        const patches = world.calls.filter((c) => c.request.verb === "patch" && c.request.resource === "trainjobs").map((c) => c.request.body as Record<string, unknown>)
        expect(patches.map((p) => p["spec"])).toEqual([{ suspend: false }, { suspend: true }])
        const job = world.sim.system.get("trainjobs", namespace, result.name) as Stored
        expect((job["spec"] as Record<string, unknown>)["suspend"]).toBe(true)
      })
    ))
})

/** Marks job `n`'s TrainJob finished with condition `type` (Complete or Failed), as the trainer would. */
const finish = (world: World, n: number, type: "Complete" | "Failed") => {
  const job = world.sim.system.get("trainjobs", namespace, trainJobNameOf(n))!
  world.sim.system.updateStatus("trainjobs", { ...job, status: { conditions: [{ type, status: "True", reason: type, message: "", lastTransitionTime: "2026-01-01T00:00:00Z" }] } })
}

describe("a finished TrainJob", () => {
  const name = trainJobNameOf(1)
  for (const type of ["Complete", "Failed"] as const) {
    it(`plain mode, ${type}: a change is refused naming the transition and the job, a state that already holds succeeds, nothing is written`, () =>
      inProcess.run({ mode: "plain" }, (world, config) =>
        Effect.gen(function* () {
          const backend = openBackend(config)
          yield* started(config, 1)
          finish(world, 1, type)
          const before = world.calls.length
          for (const [which, transition] of [["open", open], ["release", release]] as const) {
            const error = yield* Effect.flip(transition(backend, keyOf(1)))
            expect(error._tag).toBe("ErrRejected")
            expect(error.reasons).toEqual([`${which} ${namespace}/${name}: the TrainJob ${namespace}/${name} has finished`])
          }
          // Held already (spec.suspend is true): a retried Hold succeeds on the finished job.
          expect((yield* hold(backend, keyOf(1))).name).toBe(name)
          expect(writesOf(world.calls.slice(before))).toEqual([])
        })
      ))

    it(`Kueue mode, ${type}: Open of a gated Workload is refused, a Workload already held succeeds, nothing is written`, () =>
      inProcess.run({ mode: "kueue" }, (world, config) =>
        Effect.gen(function* () {
          const backend = openBackend(config)
          yield* started(config, 1)
          yield* hold(backend, keyOf(1))
          finish(world, 1, type)
          const before = world.calls.length
          const error = yield* Effect.flip(open(backend, keyOf(1)))
          expect(error.reasons).toEqual([`open ${namespace}/${name}: the TrainJob ${namespace}/${name} has finished`])
          expect((yield* hold(backend, keyOf(1))).name).toBe(name)
          expect(writesOf(world.calls.slice(before))).toEqual([])
        })
      ))
  }
})

describe("Kueue mode: Workloads in other shapes", () => {
  it("Open removes only dispatch's gate, keeping the gates of others in order", () =>
    inProcess.run({ mode: "kueue" }, (world, config) =>
      Effect.gen(function* () {
        yield* started(config, 1)
        // Gates may only be set when a Workload is created: the Workload is made again with three.
        const w = workloadOf(world, 1)
        const { uid: _uid, resourceVersion: _rv, creationTimestamp: _at, managedFields: _fields, ...metadata } = w.metadata ?? {}
        expect(world.sim.system.delete("workloads", namespace, String(metadata["name"])).code).toBeLessThan(300)
        const gates = `first.example/gate,${admissionGateName(config)},second.example/gate`
        expect(world.sim.system.create("workloads", { ...w, metadata: { ...metadata, annotations: { [gateAnnotation]: gates } } }).code).toBeLessThan(300)
        expect(annotationsOf(workloadOf(world, 1))[gateAnnotation]).toBe(gates)
        yield* open(openBackend(config), keyOf(1))
        expect(annotationsOf(workloadOf(world, 1))[gateAnnotation]).toBe("first.example/gate,second.example/gate")
        expect(checkOf(workloadOf(world, 1), "dispatch-check")).toMatchObject({ state: "Ready", message: READY_MESSAGE })
      })
    ))

  it("a Workload that does not list dispatch's check yet gets it from Hold, Release and Open", () =>
    inProcess.run({ mode: "kueue" }, (world, config) =>
      Effect.gen(function* () {
        const backend = openBackend(config)
        yield* started(config, 1)
        const dropCheck = () => {
          const w = workloadOf(world, 1)
          world.sim.system.updateStatus("workloads", { ...w, status: { ...(w["status"] as object), admissionChecks: checksOf(w).filter((c) => c["name"] !== "dispatch-check") } })
          expect(checkOf(workloadOf(world, 1), "dispatch-check")).toBeUndefined()
        }
        dropCheck()
        yield* hold(backend, keyOf(1))
        expect(checkOf(workloadOf(world, 1), "dispatch-check")).toMatchObject({ state: "Pending", message: HOLD_MESSAGE })
        dropCheck()
        yield* release(backend, keyOf(1))
        expect(checkOf(workloadOf(world, 1), "dispatch-check")).toMatchObject({ state: "Ready", message: READY_MESSAGE })
        const w = workloadOf(world, 1)
        world.sim.system.update("workloads", { ...w, metadata: { ...w.metadata, annotations: {} } })
        dropCheck()
        yield* open(backend, keyOf(1))
        expect(checkOf(workloadOf(world, 1), "dispatch-check")).toMatchObject({ state: "Ready", message: READY_MESSAGE })
      })
    ))

  it("Hold of a check that is Ready but carries the hold message still sets it Pending", () =>
    inProcess.run({ mode: "kueue" }, (world, config) =>
      Effect.gen(function* () {
        yield* started(config, 1)
        const w = workloadOf(world, 1)
        const checks = checksOf(w).map((c) => (c["name"] === "dispatch-check" ? { ...c, state: "Ready", message: HOLD_MESSAGE } : c))
        world.sim.system.updateStatus("workloads", { ...w, status: { ...(w["status"] as object), admissionChecks: checks } })
        yield* hold(openBackend(config), keyOf(1))
        expect(checkOf(workloadOf(world, 1), "dispatch-check")).toMatchObject({ state: "Pending", message: HOLD_MESSAGE })
      })
    ))

  it("Hold waits for Kueue to act on a Retry of the check, up to timeouts.workload, then refuses naming the check", () =>
    // A Workload made by hand in a cluster where Kueue does not run: nothing ever acts on the Retry.
    inProcess.run({ mode: "plain" }, (world, plain) =>
      Effect.gen(function* () {
        const result = yield* started(plain, 1)
        const created = createWorkload(world, `trainjob-${result.name}`, result.uid, [{ apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", name: result.name, uid: result.uid }])
        expect(created.code).toBeLessThan(300)
        const w = workloadsOf(world, result.name)[0]!
        const retry = [{ name: "dispatch-check", state: "Retry", message: RETRY_MESSAGE, lastTransitionTime: "2026-01-01T00:00:00Z" }]
        expect(world.sim.system.updateStatus("workloads", { ...w, status: { admissionChecks: retry } }).code).toBeLessThan(300)
        const kueue: BackendConfig = lifecycleConfig("kueue", inProcess.timing)
        const error = yield* Effect.flip(hold(openBackend(kueue), keyOf(1)))
        expect(error.reasons).toEqual([`hold ${namespace}/${result.name}: still waiting after ${kueue.timeouts.workloadMs} ms: Kueue has not acted on the Retry of dispatch-check yet`])
      })
    ))
})
