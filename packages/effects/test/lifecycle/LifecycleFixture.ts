// Two faces for the lifecycle scenarios: SimCluster over the simulator's in-process face on TestClock,
// and KubeCluster over client-node and HTTP to the simulator server on real time.
// A scenario is one Effect program; it waits with Effect.sleep, so it runs unchanged on either clock.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Layer, References, Result, Tracer } from "effect"
import { type BackendConfig, decodeConfig } from "@dispatch/render"
import { type ApiRequest, kubeconfigFor, type Outcome, Simulator, type SimulatorOptions, startSimServer } from "@dispatch/sim"
import { type Backend, openBackend } from "../../src/Backend.ts"
import type { Cluster } from "../../src/Cluster.ts"
import { InFlight, makeInFlight } from "../../src/InFlight.ts"
import { KubeCluster } from "../../src/KubeCluster.ts"
import { SimCluster } from "@dispatch/sim/cluster"
import { start, type StartResult } from "../../src/Start.ts"
import type { StartError } from "../../src/StartErrors.ts"
import { find, type FoundJob } from "../../src/lifecycle/Find.ts"
import type { JobKey } from "../../src/lifecycle/JobKey.ts"
import type { JobState } from "../../src/lifecycle/JobState.ts"
import { jobId, namespace, requestOf, runOnTestClock, runtimes } from "../StartFixture.ts"

/** How long things take on a face: the config's timeouts (seconds) and a training run (ms). */
export interface Timing {
  readonly call: number
  readonly workload: number
  readonly callBound: number
  readonly runTimeMs: number
}

/** One API call the simulator saw. */
export interface SeenCall {
  readonly request: ApiRequest
  readonly outcome: Outcome
}

/** What a scenario can look at besides the cluster: the simulator and every call it served. */
export interface World {
  readonly sim: Simulator
  readonly calls: Array<SeenCall>
}

/** How a scenario's simulator starts. */
export interface WorldOptions {
  readonly mode: "plain" | "kueue"
  /** Kueue mode: install the simulated Kueue (default true). */
  readonly kueue?: boolean
  /** Kueue mode: how many Workloads the queue admits at once. */
  readonly admitted?: number
  readonly sim?: SimulatorOptions
  /** Run against a server that is not there. */
  readonly down?: boolean
}

/** A scenario program. */
export type Program<A> = (world: World, config: BackendConfig) => Effect.Effect<A, unknown, Cluster | InFlight>

/** A way of running scenarios: a Cluster layer, a clock, and timings that suit them. */
export interface Face {
  readonly name: string
  readonly timing: Timing
  run<A>(options: WorldOptions, program: Program<A>): Promise<A>
}

/** The config every scenario uses: both runtimes of the simulator, the face's timeouts. */
export const lifecycleConfig = (mode: "plain" | "kueue", timing: Timing, overrides: Record<string, unknown> = {}): BackendConfig => {
  const decoded = decodeConfig({
    namespace,
    mode,
    runtimes: [
      { kind: "ClusterTrainingRuntime", name: "torch-distributed" },
      { kind: "TrainingRuntime", name: "team-torch" }
    ],
    ...(mode === "kueue" ? { kueue: { queue: "team-queue", admissionCheck: "dispatch-check" } } : {}),
    timeouts: { call: timing.call, workload: timing.workload, callBound: timing.callBound },
    ...overrides
  })
  if (Result.isFailure(decoded)) throw new Error(decoded.failure.reasons.join("; "))
  return decoded.success
}

/** A scenario's simulator and its record of calls. */
export const simulatorOf = (options: WorldOptions, timing: Timing): World => {
  const extra = options.sim ?? {}
  const kueue = options.mode === "kueue" && options.kueue !== false
  const sim = new Simulator({
    seed: 11,
    ...extra,
    objects: [...runtimes(), ...(extra.objects ?? [])],
    controllers: {
      trainer: { runTimeMs: timing.runTimeMs, ...(extra.controllers?.trainer ?? {}) },
      ...(kueue
        ? { kueue: { queues: { "team-queue": { admissionChecks: ["dispatch-check"], ...(options.admitted === undefined ? {} : { workloads: options.admitted }) } } } }
        : {})
    }
  })
  return { sim, calls: [] }
}

// Every call goes through here on both faces, so scenarios can count what was sent.
const recording = (world: World) => ({
  handle: (request: ApiRequest): Outcome => {
    const outcome = world.sim.handle(request)
    world.calls.push({ request, outcome })
    return outcome
  },
  watch: world.sim.watch.bind(world.sim),
  now: () => world.sim.now(),
  advanceTo: (ms: number) => world.sim.advanceTo(ms)
})

const quiet = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, References.MinimumLogLevel, "Warn")

const valueOfExit = <A>(exit: Exit.Exit<A, unknown>): A => {
  if (Exit.isSuccess(exit)) return exit.value
  const failure = exit.cause.reasons[0]
  if (failure?._tag === "Die" && failure.defect instanceof Error) throw failure.defect
  throw new Error(`scenario failed: ${failure?._tag === "Fail" ? JSON.stringify(failure.error) : String(exit.cause)}`)
}

/** SimCluster over the in-process simulator, on TestClock. */
export const inProcess: Face = {
  name: "SimCluster (in-process, TestClock)",
  timing: { call: 5, workload: 30, callBound: 60, runTimeMs: 20_000 },
  run: async (options, program) => {
    const world = simulatorOf(options, inProcess.timing)
    const config = lifecycleConfig(options.mode, inProcess.timing)
    if (options.down === true) world.sim.setFaults([{ action: { type: "refuse" } }])
    const layer = Layer.merge(SimCluster(recording(world), { callMs: config.timeouts.callMs }), Layer.succeed(InFlight, makeInFlight()))
    return valueOfExit(await runOnTestClock(program(world, config).pipe(Effect.provide(layer)), 3_600_000))
  }
}

let kubeconfigs = 0

/** KubeCluster over client-node and HTTP to the simulator server, on real time. */
export const overHttp: Face = {
  name: "KubeCluster (client-node over HTTP)",
  // Real time: timeouts no answer or Workload misses however busy the machine (a dropped call costs `call`).
  timing: { call: 10, workload: 15, callBound: 10, runTimeMs: 4000 },
  run: async (options, program) => {
    const world = simulatorOf(options, overHttp.timing)
    const config = lifecycleConfig(options.mode, overHttp.timing)
    const dir = mkdtempSync(join(tmpdir(), "dispatch-lifecycle-"))
    const server = await startSimServer({ simulator: recording(world), tickMs: 50 })
    try {
      const path = join(dir, `kubeconfig-${kubeconfigs++}`)
      writeFileSync(path, kubeconfigFor(server))
      if (options.down === true) await server.close()
      const layer = Layer.merge(Layer.orDie(KubeCluster({ kubeconfigPath: path, callMs: config.timeouts.callMs })), Layer.succeed(InFlight, makeInFlight()))
      return valueOfExit(await Effect.runPromiseExit(quiet(program(world, config).pipe(Effect.provide(layer)))))
    } finally {
      await server.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** The key of test job `n`. */
export const keyOf = (n: number, submission = 1): JobKey => ({ job: jobId(n), submission })

/** An open backend for a config. */
export const openOf = (config: BackendConfig): Backend => openBackend(config)

/** Starts job `n` on an open backend; a failed Start fails the scenario. */
export const started = (config: BackendConfig, n: number, request: unknown = requestOf(n)): Effect.Effect<StartResult, StartError, Cluster | InFlight> =>
  start(openBackend(config), request)

/** Polls Find once a second until the job is in `state`, for at most `maxMs`; fails naming the last state. */
export const awaitState = (
  backend: Backend,
  key: JobKey,
  state: JobState["state"],
  maxMs: number
): Effect.Effect<FoundJob, unknown, Cluster | InFlight> =>
  Effect.gen(function* () {
    let last: FoundJob | undefined
    for (let waited = 0; waited <= maxMs; waited += 1000) {
      last = yield* find(backend, key)
      if (last.state === state) return last
      yield* Effect.sleep(1000)
    }
    return yield* Effect.die(new Error(`job ${key.job} never reached ${state} in ${maxMs} ms; last ${JSON.stringify(last)}`))
  })

/** The stored objects of a plural in the test namespace whose name is `name`. */
export const storedNamed = (world: World, plural: string, name: string) =>
  world.sim.system.list(plural, namespace).filter((o) => o.metadata?.["name"] === name)

/** The Workloads of the test namespace whose owner is the TrainJob named `name`. */
export const workloadsOf = (world: World, name: string) =>
  world.sim.system.list("workloads", namespace).filter((w) => ((w.metadata?.["ownerReferences"] as ReadonlyArray<Record<string, unknown>> | undefined) ?? []).some((o) => o["name"] === name))

/** Writes (anything but get and list) among the calls seen. */
export const writesOf = (calls: ReadonlyArray<SeenCall>) => calls.filter((c) => c.request.verb !== "get" && c.request.verb !== "list")

/** One span a program opened: its name and attributes. */
export interface SeenSpan {
  readonly name: string
  readonly attributes: Readonly<Record<string, unknown>>
}

/** Runs `effect` with a tracer that records every span it opens, in the order they open. */
export const traced = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<{ readonly value: A; readonly spans: ReadonlyArray<SeenSpan> }, E, R> =>
  Effect.suspend(() => {
    const opened: Array<Tracer.NativeSpan> = []
    const tracer = Tracer.make({ span: (options) => { const span = new Tracer.NativeSpan(options); opened.push(span); return span } })
    return Effect.map(Effect.withTracer(effect, tracer), (value) => ({ value, spans: opened.map((s) => ({ name: s.name, attributes: Object.fromEntries(s.attributes) })) }))
  })

/** Creates a Workload in the test namespace by hand, as Kueue would make one for a TrainJob. */
export const createWorkload = (world: World, name: string, jobUid: string, ownerReferences: ReadonlyArray<unknown>) =>
  world.sim.system.create("workloads", {
    apiVersion: "kueue.x-k8s.io/v1beta2",
    kind: "Workload",
    metadata: { namespace, name, labels: { "kueue.x-k8s.io/job-uid": jobUid }, ownerReferences },
    spec: { active: true, queueName: "team-queue", podSets: [{ name: "node", count: 1, template: { spec: { containers: [{ name: "node", image: "registry.example/train:1" }] } } }] }
  })
