// Stop's promises beyond the scenarios: it deletes only what dispatch made and nothing a finalizer still
// needs, it stops a job whose create is remembered as unanswered once the TrainJob is there, a check it
// cannot make is reported rather than failing Stop, and a backend that may not write refuses it.
import { Clock, Effect } from "effect"
import { describe, expect, it } from "vitest"
import { openBackend } from "../../src/Backend.ts"
import { Cluster, type ClusterShape } from "../../src/Cluster.ts"
import { ClusterError } from "../../src/ClusterError.ts"
import { InFlight, inFlightKey } from "../../src/InFlight.ts"
import { TrainJobs } from "../../src/ResourceKind.ts"
import { stop } from "../../src/lifecycle/Stop.ts"
import { backendOf, namespace, trainJobNameOf } from "../StartFixture.ts"
import type { BackendConfig } from "@dispatch/render"
import { createWorkload, inProcess, keyOf, started, storedNamed, type World, workloadsOf, writesOf } from "./LifecycleFixture.ts"

const name = trainJobNameOf(1)

// Job 1 started, then a finalizer of another controller keeps its TrainJob after a delete.
const startedKeptByFinalizer = (world: World, config: BackendConfig) =>
  Effect.gen(function* () {
    yield* started(config, 1)
    const stored = world.sim.system.get("trainjobs", namespace, name)!
    world.sim.system.update("trainjobs", { ...stored, metadata: { ...stored.metadata, finalizers: ["example.com/keep"] } })
  })

describe("Stop deletes only what it may", () => {
  it("while a finalizer keeps the TrainJob, its owned copy stays (it goes with its owner) and both are reported", () =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        yield* startedKeptByFinalizer(world, config)
        const result = yield* stop(openBackend(config), keyOf(1))
        expect(result).toEqual({ ref: expect.objectContaining({ name }), remaining: [`TrainJob ${namespace}/${name}`, `TrainingRuntime ${namespace}/${name}`], gone: false })
        expect(storedNamed(world, "trainingruntimes", name)).toHaveLength(1)
        expect(writesOf(world.calls).filter((c) => c.request.resource === "trainingruntimes" && c.request.verb === "delete")).toEqual([])
      })
    ))

  it("a copy of the job's name without the job's labels is another's: left in place and reported", () =>
    inProcess.run({ mode: "plain", sim: { faults: [{ verb: "create", resource: "trainjobs", action: { type: "status", code: 403 } }] } }, (world, config) =>
      Effect.gen(function* () {
        // Start made the copy but not the TrainJob (403), and removed the copy; someone else's copy takes its name.
        expect((yield* Effect.flip(started(config, 1)))._tag).toBe("ErrReadOnly")
        const runtime = world.sim.system.get("clustertrainingruntimes", undefined, "torch-distributed")!
        world.sim.system.create("trainingruntimes", { apiVersion: String(runtime["apiVersion"]), kind: "TrainingRuntime", metadata: { name, namespace, labels: { app: "someone-else" } }, spec: runtime["spec"] })
        const result = yield* stop(openBackend(config), keyOf(1))
        expect(result).toMatchObject({ remaining: [`TrainingRuntime ${namespace}/${name}`], gone: false })
        expect(storedNamed(world, "trainingruntimes", name)).toHaveLength(1)
      })
    ))

  it("a TrainJob of the job's name that dispatch did not make is refused, and nothing is deleted", () =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        yield* started(config, 1)
        const stored = world.sim.system.get("trainjobs", namespace, name)!
        world.sim.system.update("trainjobs", { ...stored, metadata: { ...stored.metadata, labels: {} } })
        const error = yield* Effect.flip(stop(openBackend(config), keyOf(1)))
        expect(error._tag).toBe("ErrRejected")
        expect(error.reasons.join(" ")).toContain("dispatch did not make it")
        expect(writesOf(world.calls).filter((c) => c.request.verb === "delete")).toEqual([])
        expect(storedNamed(world, "trainjobs", name)).toHaveLength(1)
      })
    ))

  it("an ownerless copy (Start stopped before step 7) is deleted with the TrainJob", () =>
    inProcess.run({ mode: "plain", sim: { faults: [{ verb: "patch", resource: "trainingruntimes", action: { type: "status", code: 422 } }, { verb: "delete", action: { type: "status", code: 503 } }] } }, (world, config) =>
      Effect.gen(function* () {
        // Step 7 fails, and so does Start's own clean-up: the TrainJob and an ownerless copy remain.
        yield* Effect.flip(started(config, 1))
        expect(storedNamed(world, "trainingruntimes", name)).toHaveLength(1)
        world.sim.setFaults([])
        const result = yield* stop(openBackend(config), keyOf(1), { waitMs: 5_000 })
        expect(result).toMatchObject({ remaining: [], gone: true })
        expect(storedNamed(world, "trainingruntimes", name)).toEqual([])
        expect(storedNamed(world, "trainjobs", name)).toEqual([])
      })
    ))
})

describe("Stop and InFlight", () => {
  it("a job whose TrainJob is there stops even while a create of it is remembered as unanswered", () =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        yield* started(config, 1)
        const inFlight = yield* InFlight
        yield* inFlight.remember(inFlightKey({ namespace, name }), yield* Clock.currentTimeMillis)
        const result = yield* stop(openBackend(config), keyOf(1), { waitMs: 5_000 })
        expect(result.gone).toBe(true)
        expect(storedNamed(world, "trainjobs", name)).toEqual([])
      })
    ))

  it("without a TrainJob, an unanswered create younger than CallBound refuses Stop, saying how long ago and when to retry", () =>
    inProcess.run({ mode: "plain" }, (_world, config) =>
      Effect.gen(function* () {
        const inFlight = yield* InFlight
        yield* inFlight.remember(inFlightKey({ namespace, name }), yield* Clock.currentTimeMillis)
        yield* Effect.sleep(1000)
        const error = yield* Effect.flip(stop(openBackend(config), keyOf(1)))
        expect(error._tag).toBe("ErrOutcomeUnknown")
        expect(error.reasons).toEqual([
          `a create of the TrainJob ${namespace}/${name} went unanswered 1000 ms ago and may still land: Stop again after timeouts.callBound (${config.timeouts.callBoundMs} ms)`
        ])
        expect(error).toMatchObject({ ref: { namespace, name } })
      })
    ))
})

describe("Stop after CallBound", () => {
  it("as its refusal promises, a Stop exactly timeouts.callBound after the unanswered create goes ahead", () =>
    inProcess.run({ mode: "plain" }, (_world, config) =>
      Effect.gen(function* () {
        const inFlight = yield* InFlight
        yield* inFlight.remember(inFlightKey({ namespace, name }), yield* Clock.currentTimeMillis)
        yield* Effect.sleep(config.timeouts.callBoundMs)
        const result = yield* stop(openBackend(config), keyOf(1))
        expect(result).toMatchObject({ remaining: [], gone: true })
      })
    ))

  it("a second Stop while a finalizer keeps the TrainJob sends no second delete", () =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        yield* startedKeptByFinalizer(world, config)
        yield* stop(openBackend(config), keyOf(1))
        const deletes = () => writesOf(world.calls).filter((c) => c.request.resource === "trainjobs" && c.request.verb === "delete")
        expect(deletes()).toHaveLength(1)
        const again = yield* stop(openBackend(config), keyOf(1))
        expect(again).toMatchObject({ remaining: [`TrainJob ${namespace}/${name}`, `TrainingRuntime ${namespace}/${name}`], gone: false })
        expect(deletes()).toHaveLength(1)
      })
    ))
})

describe("what Stop reports", () => {
  it("a check it cannot make is listed as not checked, and the job is not called gone", () =>
    inProcess.run({ mode: "kueue" }, (world, config) =>
      Effect.gen(function* () {
        yield* started(config, 1)
        world.sim.setFaults([{ verb: "list", resource: "workloads", action: { type: "status", code: 500 } }])
        const result = yield* stop(openBackend(config), keyOf(1))
        expect(result.gone).toBe(false)
        expect(result.remaining.filter((r) => r.startsWith("Workload"))).toEqual([expect.stringMatching(/^Workload: not checked: list workloads .*500/)])
      })
    ))

  it("without waiting (the default) it looks once; with waitMs it polls until the objects are gone", () =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        yield* startedKeptByFinalizer(world, config)
        const start = yield* Clock.currentTimeMillis
        expect((yield* stop(openBackend(config), keyOf(1))).gone).toBe(false)
        expect((yield* Clock.currentTimeMillis) - start).toBe(0)
        // The finalizer goes after 2 s; a Stop waiting 10 s sees the job gone.
        const lift = Effect.gen(function* () {
          yield* Effect.sleep(2000)
          const now = world.sim.system.get("trainjobs", namespace, name)!
          world.sim.system.update("trainjobs", { ...now, metadata: { ...now.metadata, finalizers: [] } })
        })
        yield* Effect.forkChild(lift)
        const waited = yield* stop(openBackend(config), keyOf(1), { waitMs: 10_000 })
        expect(waited).toMatchObject({ remaining: [], gone: true })
      })
    ))

  it("a read-only or closed backend refuses Stop without a call", () =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        yield* started(config, 1)
        const before = world.calls.length
        expect((yield* Effect.flip(stop(backendOf(config, { state: "read-only", reason: "403" }), keyOf(1))))._tag).toBe("ErrReadOnly")
        expect((yield* Effect.flip(stop(backendOf(config, { state: "closed", reason: "down" }), keyOf(1))))._tag).toBe("ErrUnreachable")
        expect(world.calls.slice(before)).toEqual([])
        const cluster = yield* Cluster
        expect(yield* cluster.get(TrainJobs, { namespace, name })).toBeDefined()
      })
    ))
})

describe("what Stop names", () => {
  it("checks it cannot make name the object and every reason of the read's failure", () =>
    inProcess.run({ mode: "plain" }, (_world, config) =>
      Effect.gen(function* () {
        const failure = (plural: string) =>
          new ClusterError({ reason: "ServerError", call: `get ${plural} ${namespace}/${name}`, status: { code: 500, reason: "InternalError", message: "etcd is unavailable", causes: [{ message: "leader changed" }] } })
        // Nothing to stop: Stop reads the TrainJob twice and the copy once, then checks what remains.
        const reads = new Map<string, number>()
        const lastReadsFail = Effect.map(Cluster, (cluster): ClusterShape => ({
          ...cluster,
          get: (kind, key) =>
            Effect.suspend(() => {
              const n = (reads.get(kind.plural) ?? 0) + 1
              reads.set(kind.plural, n)
              const checking = kind.plural === "trainjobs" ? n > 2 : n > 1
              return checking ? Effect.fail(failure(kind.plural)) : cluster.get(kind, key)
            })
        }))
        const result = yield* Effect.provideService(stop(openBackend(config), keyOf(1)), Cluster, yield* lastReadsFail)
        expect(failure("trainjobs").reasons).toHaveLength(2)
        expect(result).toEqual({
          ref: { namespace, name },
          remaining: [`TrainJob: not checked: ${failure("trainjobs").reasons.join("; ")}`, `TrainingRuntime: not checked: ${failure("trainingruntimes").reasons.join("; ")}`],
          gone: false
        })
      })
    ))

  it("a delete that conflicts every time ends after five, naming the Stop and its job", () =>
    inProcess.run({ mode: "plain", sim: { faults: [{ verb: "delete", resource: "trainjobs", action: { type: "status", code: 409 } }] } }, (_world, config) =>
      Effect.gen(function* () {
        yield* started(config, 1)
        const error = yield* Effect.flip(stop(openBackend(config), keyOf(1)))
        expect(error._tag).toBe("ErrRejected")
        expect(error.reasons[0]).toBe(`stop ${namespace}/${name}: the change did not hold after 5 writes`)
      })
    ))

  it("an unanswered create's age is measured from when it was sent, on a clock long past zero", () =>
    inProcess.run({ mode: "plain" }, (_world, config) =>
      Effect.gen(function* () {
        yield* Effect.sleep(5 * config.timeouts.callBoundMs)
        const inFlight = yield* InFlight
        yield* inFlight.remember(inFlightKey({ namespace, name }), (yield* Clock.currentTimeMillis) - 1000)
        const error = yield* Effect.flip(stop(openBackend(config), keyOf(1)))
        expect(error.reasons[0]).toMatch(/ went unanswered 1000 ms ago /)
      })
    ))
})

describe("Stop after the TrainJob is gone, in Kueue mode", () => {
  it("reports the Workloads whose owner is a TrainJob of the job's name, and no other", () =>
    inProcess.run({ mode: "kueue" }, (world, config) =>
      Effect.gen(function* () {
        const trainJob = (ownerName: string, kind = "TrainJob") => ({ apiVersion: "trainer.kubeflow.org/v1alpha1", kind, name: ownerName, uid: `uid-${ownerName}` })
        // Left behind by a TrainJob of the job's name (among other owners), and Workloads of others.
        for (const [w, owners] of [
          ["ours", [{ apiVersion: "v1", kind: "Secret", name: "s", uid: "uid-s" }, trainJob(name)]],
          ["another-job", [trainJob("dj-other-s1")]],
          ["not-a-trainjob", [trainJob(name, "Job")]],
          ["no-owner", []]
        ] as const) expect(createWorkload(world, w, "some-uid", owners).code).toBeLessThan(300)
        const result = yield* stop(openBackend(config), keyOf(1))
        expect(result).toEqual({ ref: { namespace, name }, remaining: [`Workload ${namespace}/ours`], gone: false })
      })
    ))
})

describe("Stop's Workloads while the TrainJob is there, in Kueue mode", () => {
  it("are its TrainJob's, by UID: a Workload left by an earlier TrainJob of the name is not reported", () =>
    inProcess.run({ mode: "kueue" }, (world, config) =>
      Effect.gen(function* () {
        yield* startedKeptByFinalizer(world, config)
        const ours = String(workloadsOf(world, name)[0]?.metadata?.["name"])
        const earlier = { apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", name, uid: "uid-of-an-earlier-trainjob" }
        expect(createWorkload(world, "left-by-an-earlier-trainjob", earlier.uid, [earlier]).code).toBeLessThan(300)
        const result = yield* stop(openBackend(config), keyOf(1))
        expect(result.remaining).toEqual([`TrainJob ${namespace}/${name}`, `TrainingRuntime ${namespace}/${name}`, `Workload ${namespace}/${ours}`])
      })
    ))
})
