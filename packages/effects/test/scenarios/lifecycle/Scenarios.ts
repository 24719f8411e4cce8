// The scenarios of issue 5, written once and run on both faces (see LifecycleFixture).
import { Effect } from "effect"
import { expect } from "vitest"
import { type BackendConfig, PROBE_JOB_ID, probeSelectorKey, trainJobName } from "@dispatch/render"
import { openBackend } from "../../../src/Backend.ts"
import type { InFlight } from "../../../src/InFlight.ts"
import { Cluster } from "../../../src/Cluster.ts"
import { TrainJobs } from "../../../src/ResourceKind.ts"
import { capabilities } from "../../../src/lifecycle/Capabilities.ts"
import { factoryOf } from "../../../src/lifecycle/Factory.ts"
import { find, findMany } from "../../../src/lifecycle/Find.ts"
import { probe } from "../../../src/lifecycle/Probe.ts"
import { RETRY_POLICY } from "../../../src/RetryPolicy.ts"
import { stop } from "../../../src/lifecycle/Stop.ts"
import { hold, open, release } from "../../../src/lifecycle/Transitions.ts"
import { jobId, namespace, requestOf } from "../../StartFixture.ts"
import { awaitState, type Face, keyOf, started, storedNamed, workloadsOf, type World, writesOf } from "../../lifecycle/LifecycleFixture.ts"

/** One scenario: a name and how to run it on a face. */
export interface Scenario {
  readonly name: string
  readonly run: (face: Face) => Promise<void>
}

const probeName = trainJobName(PROBE_JOB_ID, 1)

/** Asserts that nothing of the probe is left in the simulator. */
const noProbeLeft = (world: World): void => {
  expect(storedNamed(world, "trainjobs", probeName)).toEqual([])
  expect(storedNamed(world, "trainingruntimes", probeName)).toEqual([])
  expect(workloadsOf(world, probeName)).toEqual([])
}

/** Asserts that nothing of job `n` is left. */
const nothingLeftOf = (world: World, n: number): void => {
  const name = trainJobName(jobId(n), 1)
  expect(storedNamed(world, "trainjobs", name)).toEqual([])
  expect(storedNamed(world, "trainingruntimes", name)).toEqual([])
  expect(workloadsOf(world, name)).toEqual([])
}

const check = (f: () => void) => Effect.sync(f)

const factoryScenarios: ReadonlyArray<Scenario> = (["plain", "kueue"] as const).flatMap((mode): ReadonlyArray<Scenario> => [
  {
    name: `${mode}: Factory opens a backend whose gates all hold, and the probe leaves nothing behind`,
    run: (face) =>
      face.run({ mode }, (world, config) =>
        Effect.gen(function* () {
          const backend = yield* factoryOf(config)
          expect(backend.gate).toEqual({ state: "open" })
          yield* check(() => noProbeLeft(world))
          // The probe went through Start: it created a copy and a TrainJob, which Stop then deleted.
          const creates = world.calls.filter((c) => c.request.verb === "create").map((c) => c.request.resource)
          expect(creates).toEqual(["trainingruntimes", "trainjobs"])
        })
      )
  },
  {
    name: `${mode}: Factory is closed when the server is down, and says why`,
    run: (face) =>
      face.run({ mode, down: true }, (_world, config) =>
        Effect.gen(function* () {
          const report = yield* probe(config)
          expect(report.gate.state).toBe("closed")
          expect(report.reach.proven).toBe(false)
          expect(report.reach.reasons.join(" ")).toContain("runtime ClusterTrainingRuntime/torch-distributed cannot be read")
          expect(report.write.proven).toBe(false)
        })
      )
  },
  {
    name: `${mode}: Factory is read-only when creates are forbidden (403), leaving nothing`,
    run: (face) =>
      face.run({ mode, sim: { faults: [{ verb: "create", action: { type: "status", code: 403 } }] } }, (world, config) =>
        Effect.gen(function* () {
          const backend = yield* factoryOf(config)
          expect(backend.gate.state).toBe("read-only")
          expect(backend.gate.state === "read-only" && backend.gate.reason).toContain("403")
          yield* check(() => noProbeLeft(world))
        })
      )
  },
  {
    name: `${mode}: Factory is read-only when only the TrainJob create is forbidden, and removes the copy`,
    run: (face) =>
      face.run({ mode, sim: { faults: [{ verb: "create", resource: "trainjobs", action: { type: "status", code: 403 } }] } }, (world, config) =>
        Effect.gen(function* () {
          const backend = yield* factoryOf(config)
          expect(backend.gate.state).toBe("read-only")
          yield* check(() => noProbeLeft(world))
        })
      )
  },
  {
    name: `${mode}: Factory is observe-only when the probe's read-back fails halfway, and still leaves nothing`,
    run: (face) =>
      face.run(
        {
          mode,
          sim: {
            faults: [
              // Step 7 cannot set the owner in any try, and Start's own stop of the TrainJob is refused too.
              { verb: "patch", resource: "trainingruntimes", nth: 1, times: RETRY_POLICY.tries, action: { type: "status", code: 500 } },
              { verb: "delete", resource: "trainjobs", nth: 1, times: RETRY_POLICY.tries, action: { type: "status", code: 503 } }
            ]
          }
        },
        (world, config) =>
          Effect.gen(function* () {
            const report = yield* probe(config)
            expect(report.gate.state).toBe("observe-only")
            expect(report.write.proven).toBe(true)
            expect(report.launch.reasons.join(" ")).toContain("owner")
            expect(report.leftovers).toEqual([])
            yield* check(() => noProbeLeft(world))
          })
      )
  }
])

const kueueOnly: ReadonlyArray<Scenario> = [
  {
    name: "kueue: Factory is observe-only when Kueue is not installed (Kueue never takes the probe), leaving nothing",
    run: (face) =>
      face.run({ mode: "kueue", kueue: false }, (world, config) =>
        Effect.gen(function* () {
          const backend = yield* factoryOf(config)
          expect(backend.gate.state).toBe("observe-only")
          // Start's read-back sees that Kueue's webhook did not suspend the probe before any Workload wait.
          expect(backend.gate.state === "observe-only" && backend.gate.reason).toContain("Kueue does not manage this TrainJob")
          yield* check(() => noProbeLeft(world))
        })
      )
  },
  {
    name: "kueue: the probe carries a node selector no node matches, and its Workload stays gated",
    run: (face) =>
      face.run({ mode: "kueue" }, (world, config) =>
        Effect.gen(function* () {
          const cluster = yield* Cluster
          const bodies: Array<unknown> = []
          const watching = { ...cluster, create: (kind: typeof TrainJobs, object: Record<string, unknown>) => Effect.tap(cluster.create(kind, object), () => Effect.sync(() => void (kind.plural === "trainjobs" ? bodies.push(object) : undefined))) }
          const report = yield* Effect.provideService(probe(config), Cluster, watching)
          expect(report.gate.state).toBe("open")
          expect(JSON.stringify(bodies[0])).toContain(`"nodeSelector":{"${probeSelectorKey(config)}":"never"}`)
          // The probe's Workload was never admitted: dispatch's gate stayed on it until it was collected.
          const admittedPatches = world.calls.filter((c) => c.request.resource === "workloads" && c.request.verb === "patch")
          expect(admittedPatches).toEqual([])
          yield* check(() => noProbeLeft(world))
        })
      )
  }
]

const flowScenarios: ReadonlyArray<Scenario> = (["plain", "kueue"] as const).flatMap((mode): ReadonlyArray<Scenario> => [
  {
    name: `${mode}: Start -> Held -> Open -> Running -> Succeeded`,
    run: (face) =>
      face.run({ mode }, (world, config) =>
        Effect.gen(function* () {
          const backend = openBackend(config)
          const key = keyOf(1)
          const result = yield* started(config, 1)
          const held = yield* find(backend, key)
          expect(held).toMatchObject({ state: "Held", ref: { namespace, name: result.name, uid: result.uid } })
          const opened = yield* open(backend, key)
          expect(opened.uid).toBe(result.uid)
          yield* awaitState(backend, key, "Running", 10_000)
          const done = yield* awaitState(backend, key, "Succeeded", face.timing.runTimeMs + 10_000)
          expect(done).toMatchObject({ state: "Succeeded", reason: "AllJobsCompleted" })
          const job = storedNamed(world, "trainjobs", result.name)[0]
          if (mode === "kueue") expect((job?.["spec"] as Record<string, unknown>)["suspend"]).toBe(false)
        })
      )
  },
  {
    name: `${mode}: Hold and Release while running`,
    run: (face) =>
      face.run({ mode }, (world, config) =>
        Effect.gen(function* () {
          const backend = openBackend(config)
          const key = keyOf(2)
          const result = yield* started(config, 2)
          yield* open(backend, key)
          yield* awaitState(backend, key, "Running", 10_000)
          yield* hold(backend, key)
          const held = yield* awaitState(backend, key, "Held", 5_000)
          expect(held.state === "Held" && held.reason).toContain(mode === "plain" ? "spec.suspend" : "dispatch holds")
          // The job is stopped: Trainer's pods are gone once the TrainJob is suspended.
          yield* Effect.sleep(1000)
          const job = storedNamed(world, "trainjobs", result.name)[0]
          expect((job?.["spec"] as Record<string, unknown>)["suspend"]).toBe(true)
          // Hold twice is Hold once: nothing more is written.
          const before = writesOf(world.calls).length
          yield* hold(backend, key)
          expect(writesOf(world.calls).length).toBe(before)
          yield* release(backend, key)
          yield* awaitState(backend, key, "Running", 10_000)
          yield* awaitState(backend, key, "Succeeded", face.timing.runTimeMs + 10_000)
        })
      )
  },
  {
    name: `${mode}: a run past its deadline is Failed with reason DeadlineExceeded`,
    run: (face) =>
      face.run({ mode }, (_world, config) =>
        Effect.gen(function* () {
          const backend = openBackend(config)
          const key = keyOf(3)
          const request = requestOf(3)
          yield* started(config, 3, { ...request, spec: { ...request.spec, timeLimit: 1 } })
          yield* open(backend, key)
          const failed = yield* awaitState(backend, key, "Failed", face.timing.runTimeMs + 10_000)
          expect(failed).toMatchObject({ state: "Failed", reason: "DeadlineExceeded" })
        })
      )
  },
  {
    name: `${mode}: Find after ErrOutcomeUnknown is InFlight within CallBound and Absent after; a retry then converges`,
    run: (face) =>
      face.run({ mode, sim: { faults: [{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "status", code: 504 } }] } }, (_world, config) =>
        Effect.gen(function* () {
          const backend = openBackend(config)
          const key = keyOf(4)
          const error = yield* Effect.flip(started(config, 4))
          expect(error._tag).toBe("ErrOutcomeUnknown")
          const within = yield* find(backend, key)
          expect(within.state).toBe("InFlight")
          yield* Effect.sleep(config.timeouts.callBoundMs)
          const after = yield* find(backend, key)
          expect(after.state).toBe("Absent")
          yield* started(config, 4)
          expect((yield* find(backend, key)).state).toBe("Held")
        })
      )
  },
  {
    name: `${mode}: Find after an ErrOutcomeUnknown whose create landed reports the TrainJob, not InFlight`,
    run: (face) =>
      face.run({ mode, sim: { faults: [{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "drop" } }] } }, (_world, config) =>
        Effect.gen(function* () {
          const backend = openBackend(config)
          const error = yield* Effect.flip(started(config, 5))
          expect(error._tag).toBe("ErrOutcomeUnknown")
          expect((yield* find(backend, keyOf(5))).state).toBe("Held")
        })
      )
  },
  {
    name: `${mode}: Find for many jobs uses one labelled list of TrainJobs`,
    run: (face) =>
      face.run({ mode }, (world, config) =>
        Effect.gen(function* () {
          const backend = openBackend(config)
          yield* started(config, 6)
          yield* started(config, 7)
          yield* open(backend, keyOf(7))
          yield* awaitState(backend, keyOf(7), "Running", 10_000)
          const before = world.calls.length
          const statuses = yield* findMany(backend, [keyOf(6), keyOf(7), keyOf(8), keyOf(6, 2)])
          expect(statuses.map((s) => s.state)).toEqual(["Held", "Running", "Absent", "Absent"])
          const calls = world.calls.slice(before).map((c) => `${c.request.verb} ${c.request.resource}`)
          expect(calls).toEqual(mode === "plain" ? ["list trainjobs"] : ["list trainjobs", "list workloads"])
          if (mode === "kueue") {
            // Only the Workloads of the TrainJobs found, by their UIDs, not every Workload of the namespace.
            const uids = statuses.flatMap((s) => (s.ref.uid === undefined ? [] : [s.ref.uid])).sort()
            expect(world.calls.slice(before)[1]?.request.labelSelector).toBe(`kueue.x-k8s.io/job-uid in (${uids.join(",")})`)
          }
        })
      )
  }
])

type StoppableState = "Absent" | "Held" | "Queued" | "Running" | "Succeeded" | "Failed"

/** Puts job `n` in `state` (Queued: Kueue mode, behind job 90 holding the queue's only place). */
const reach = (face: Face, config: BackendConfig, n: number, state: StoppableState): Effect.Effect<void, unknown, Cluster | InFlight> =>
  Effect.gen(function* () {
    const backend = openBackend(config)
    const key = keyOf(n)
    if (state === "Queued") {
      yield* started(config, 90)
      yield* open(backend, keyOf(90))
      yield* awaitState(backend, keyOf(90), "Running", 10_000)
    }
    if (state === "Absent") return
    const request = requestOf(n)
    yield* started(config, n, state === "Failed" ? { ...request, spec: { ...request.spec, timeLimit: 1 } } : request)
    if (state === "Held") return
    yield* open(backend, key)
    // Queued once Kueue has made the Workload: bounded as Start bounds its own wait for it.
    const wait = state === "Queued" ? face.timing.workload * 1000 : state === "Running" ? 10_000 : face.timing.runTimeMs + 10_000
    yield* awaitState(backend, key, state, wait)
  })

/** Job 90 runs for an hour, holding the queue's only place while job 10 waits behind it. */
const queueHog = [{ name: trainJobName(jobId(90), 1), result: "Complete" as const, afterMs: 3_600_000 }]

const stopCase = (mode: "plain" | "kueue", state: StoppableState): Scenario => ({
  name: `${mode}: Stop while ${state} removes the TrainJob, its copy and its Workload, and is idempotent`,
  run: (face) =>
    face.run(state === "Queued" ? { mode, admitted: 1, sim: { controllers: { trainer: { outcomes: queueHog } } } } : { mode }, (world, config) =>
      Effect.gen(function* () {
        const n = 10
        const backend = openBackend(config)
        yield* reach(face, config, n, state)
        expect((yield* find(backend, keyOf(n))).state).toBe(state)
        const first = yield* stop(backend, keyOf(n), { waitMs: 5_000 })
        expect(first).toMatchObject({ gone: true, remaining: [] })
        yield* check(() => nothingLeftOf(world, n))
        const before = writesOf(world.calls).length
        const again = yield* stop(backend, keyOf(n))
        expect(again.gone).toBe(true)
        expect(writesOf(world.calls).length).toBe(before)
        expect((yield* find(backend, keyOf(n))).state).toBe("Absent")
      })
    )
})

const finalizer = "example.com/keep"

const otherStops: ReadonlyArray<Scenario> = [
  ...(["plain", "kueue"] as const).map((mode): Scenario => ({
    name: `${mode}: Stop while InFlight is ErrOutcomeUnknown until CallBound, then removes the copy the failed Start left`,
    run: (face) =>
      face.run({ mode, sim: { faults: [{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "status", code: 504 } }] } }, (world, config) =>
        Effect.gen(function* () {
          const backend = openBackend(config)
          expect((yield* Effect.flip(started(config, 11)))._tag).toBe("ErrOutcomeUnknown")
          expect((yield* find(backend, keyOf(11))).state).toBe("InFlight")
          const early = yield* Effect.flip(stop(backend, keyOf(11)))
          expect(early._tag).toBe("ErrOutcomeUnknown")
          expect(early.reasons.join(" ")).toContain("Stop again after timeouts.callBound")
          // The copy Start made stays until the create can no longer land.
          expect(storedNamed(world, "trainingruntimes", trainJobName(jobId(11), 1))).toHaveLength(1)
          yield* Effect.sleep(config.timeouts.callBoundMs)
          const later = yield* stop(backend, keyOf(11), { waitMs: 5_000 })
          expect(later.gone).toBe(true)
          yield* check(() => nothingLeftOf(world, 11))
        })
      )
  })),
  {
    name: "kueue: a repeated Stop still reports a Workload kept by a finalizer after its TrainJob is gone",
    run: (face) =>
      face.run({ mode: "kueue" }, (world, config) =>
        Effect.gen(function* () {
          const backend = openBackend(config)
          const result = yield* started(config, 16)
          // Kueue's own resource-in-use finalizer keeps a Workload after its owner goes.
          const [workload] = workloadsOf(world, result.name)
          if (workload === undefined) return yield* Effect.die(new Error("Start made no Workload"))
          world.sim.system.update("workloads", { ...workload, metadata: { ...workload.metadata, finalizers: ["kueue.x-k8s.io/resource-in-use"] } })
          const first = yield* stop(backend, keyOf(16), { waitMs: 3_000 })
          const workloadLabel = `Workload ${namespace}/${String(workload.metadata?.["name"])}`
          expect(first).toMatchObject({ gone: false, remaining: [workloadLabel] })
          expect(storedNamed(world, "trainjobs", result.name)).toEqual([])
          const again = yield* stop(backend, keyOf(16))
          expect(again).toMatchObject({ gone: false, remaining: [workloadLabel] })
          const held = workloadsOf(world, result.name)[0]!
          world.sim.system.update("workloads", { ...held, metadata: { ...held.metadata, finalizers: [] } })
          const done = yield* stop(backend, keyOf(16), { waitMs: 5_000 })
          expect(done).toMatchObject({ gone: true, remaining: [] })
          yield* check(() => nothingLeftOf(world, 16))
        })
      )
  },
  ...(["plain", "kueue"] as const).map((mode): Scenario => ({
    name: `${mode}: Stop while Stopping waits for the TrainJob to go and reports it until then`,
    run: (face) =>
      face.run({ mode }, (world, config) =>
        Effect.gen(function* () {
          const backend = openBackend(config)
          const result = yield* started(config, 12)
          // Someone else's finalizer keeps the TrainJob in Stopping after a delete.
          const stored = world.sim.system.get("trainjobs", namespace, result.name)!
          world.sim.system.update("trainjobs", { ...stored, metadata: { ...stored.metadata, finalizers: [finalizer] } })
          const cluster = yield* Cluster
          yield* cluster.delete(TrainJobs, { namespace, name: result.name })
          expect((yield* find(backend, keyOf(12))).state).toBe("Stopping")
          const waiting = yield* stop(backend, keyOf(12))
          expect(waiting.gone).toBe(false)
          expect(waiting.remaining).toContain(`TrainJob ${namespace}/${result.name}`)
          const current = world.sim.system.get("trainjobs", namespace, result.name)!
          world.sim.system.update("trainjobs", { ...current, metadata: { ...current.metadata, finalizers: [] } })
          const done = yield* stop(backend, keyOf(12), { waitMs: 5_000 })
          expect(done.gone).toBe(true)
          yield* check(() => nothingLeftOf(world, 12))
        })
      )
  }))
]

const stopScenarios: ReadonlyArray<Scenario> = [
  ...(["Absent", "Held", "Running", "Succeeded", "Failed"] as const).flatMap((state) => [stopCase("plain", state), stopCase("kueue", state)]),
  stopCase("kueue", "Queued"),
  ...otherStops
]

const transitionScenarios: ReadonlyArray<Scenario> = (["plain", "kueue"] as const).flatMap((mode): ReadonlyArray<Scenario> => [
  {
    name: `${mode}: Capabilities checks the spec's runtime and creates nothing`,
    run: (face) =>
      face.run({ mode }, (world, config) =>
        Effect.gen(function* () {
          const answer = yield* capabilities(openBackend(config), requestOf(1, { kind: "TrainingRuntime", runtime: "team-torch" }).spec)
          expect(answer).toEqual({ runtime: { kind: "TrainingRuntime", name: "team-torch" }, nativeRequeue: false, nativeRestart: false })
          const refused = yield* Effect.flip(capabilities(openBackend(config), requestOf(1, { runtime: "elsewhere" }).spec))
          expect(refused._tag).toBe("ErrUnsupported")
          expect(writesOf(world.calls)).toEqual([])
        })
      )
  },
  {
    name: `${mode}: an observe-only backend may Find, Hold and Stop, but not Open`,
    run: (face) =>
      face.run({ mode }, (world, config) =>
        Effect.gen(function* () {
          const observeOnly = { config, gate: { state: "observe-only" as const, reason: "no Workload" } }
          yield* started(config, 14)
          expect((yield* Effect.flip(open(observeOnly, keyOf(14))))._tag).toBe("ErrUnsupported")
          yield* hold(observeOnly, keyOf(14))
          expect((yield* find(observeOnly, keyOf(14))).state).toBe("Held")
          expect((yield* stop(observeOnly, keyOf(14), { waitMs: 5_000 })).gone).toBe(true)
          yield* check(() => nothingLeftOf(world, 14))
        })
      )
  },
  {
    name: `${mode}: Open and Release stay idempotent after the job finished; Hold, which would write, is refused`,
    run: (face) =>
      face.run({ mode }, (world, config) =>
        Effect.gen(function* () {
          const backend = openBackend(config)
          yield* started(config, 15)
          yield* open(backend, keyOf(15))
          yield* awaitState(backend, keyOf(15), "Succeeded", face.timing.runTimeMs + 10_000)
          const before = writesOf(world.calls).length
          yield* open(backend, keyOf(15))
          yield* release(backend, keyOf(15))
          expect(writesOf(world.calls).length).toBe(before)
          const refused = yield* Effect.flip(hold(backend, keyOf(15)))
          expect(refused._tag).toBe("ErrRejected")
          expect(refused.reasons.join(" ")).toContain("has finished")
          expect(writesOf(world.calls).length).toBe(before)
        })
      )
  },
  {
    name: `${mode}: Open is idempotent and survives a conflicting writer (409) by reading again`,
    run: (face) =>
      face.run({ mode, sim: { faults: [{ verb: "patch", resource: mode === "plain" ? "trainjobs" : "workloads", nth: 1, action: { type: "status", code: 409 } }] } }, (world, config) =>
        Effect.gen(function* () {
          const backend = openBackend(config)
          yield* started(config, 13)
          yield* open(backend, keyOf(13))
          const before = writesOf(world.calls).length
          yield* open(backend, keyOf(13))
          yield* release(backend, keyOf(13))
          expect(writesOf(world.calls).length).toBe(before)
          yield* awaitState(backend, keyOf(13), "Running", 10_000)
        })
      )
  }
])

/** Every scenario of issue 5. */
export const scenarios: ReadonlyArray<Scenario> = [...factoryScenarios, ...kueueOnly, ...flowScenarios, ...stopScenarios, ...transitionScenarios]
