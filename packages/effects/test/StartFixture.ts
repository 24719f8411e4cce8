// Test support for Start: a simulator with dispatch's runtimes, a face that records every call, and a
// runner that drives TestClock until Start finishes.
import { torchRuntime as sharedTorchRuntime } from "../../../test/fixtures/TorchRuntime.ts"
import { Effect, Exit, Fiber, Layer, References, Result } from "effect"
import { TestClock } from "effect/testing"
import { type BackendConfig, decodeConfig, admissionGateName, trainJobName } from "@dispatch/render"
import { type ApiRequest, type Controller, type KubeObject, type Outcome, Simulator, type SimulatorOptions } from "@dispatch/sim"
import { type Backend, type Gate, openBackend } from "../src/Backend.ts"
import { InFlight, makeInFlight, type InFlightShape } from "../src/InFlight.ts"
import { SimCluster, type SimulatorFace } from "@dispatch/sim/cluster"
import { start, type StartResult } from "../src/Start.ts"
import type { StartError } from "../src/StartErrors.ts"
import { admissionGatedBy } from "@dispatch/kube"
import { jobUidLabel } from "../src/WorkloadReadiness.ts"

/** The namespace every test works in. */
export const namespace = "default"

/** A canonical JobID for test number `n`. */
export const jobId = (n: number): string =>
  `01J${[...n.toString(32).padStart(23, "0")].map((digit) => crockford[parseInt(digit, 32)]).join("")}`

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

/** A torch runtime in the shape Trainer ships. */
export const torchRuntime = (name: string, kind: "ClusterTrainingRuntime" | "TrainingRuntime" = "ClusterTrainingRuntime", image = "pytorch/pytorch:2"): KubeObject =>
  sharedTorchRuntime({ name, kind, image, ...(kind === "TrainingRuntime" ? { namespace } : {}) })

/** The runtimes every simulator starts with. */
export const runtimes = (): ReadonlyArray<KubeObject> => [torchRuntime("torch-distributed"), torchRuntime("team-torch", "TrainingRuntime")]

/** A decoded config; `kueue` adds the queue and admission check. */
export const configOf = (mode: "plain" | "kueue", overrides: Record<string, unknown> = {}): BackendConfig => {
  const decoded = decodeConfig({
    namespace,
    mode,
    runtimes: [
      { kind: "ClusterTrainingRuntime", name: "torch-distributed" },
      { kind: "TrainingRuntime", name: "team-torch" },
      { kind: "ClusterTrainingRuntime", name: "absent-runtime" }
    ],
    ...(mode === "kueue" ? { kueue: { queue: "team-queue", admissionCheck: "dispatch-check" } } : {}),
    timeouts: { call: 5, workload: 30, callBound: 60 },
    ...overrides
  })
  if (Result.isFailure(decoded)) throw new Error(decoded.failure.reasons.join("; "))
  return decoded.success
}

/** A backend with the given gate. */
export const backendOf = (config: BackendConfig, gate: Gate = { state: "open" }): Backend => ({ ...openBackend(config), gate })

/** A Start request for job `n`. */
export const requestOf = (
  n: number,
  options: { submission?: number; runtime?: string; kind?: string; image?: string; command?: ReadonlyArray<string>; env?: Readonly<Record<string, string>>; nodes?: number } = {}
) => ({
  job: jobId(n),
  generation: 0,
  submission: options.submission ?? 1,
  attempt: 1,
  spec: {
    command: options.command ?? ["python", "train.py"],
    env: options.env ?? { B: "2", A: "1" },
    nodes: options.nodes ?? 1,
    extensions: {
      "dispatch/Image": { ref: options.image ?? "registry.example/train:1" },
      "kubeflow/RuntimeRef": { kind: options.kind ?? "ClusterTrainingRuntime", name: options.runtime ?? "torch-distributed" }
    }
  }
})

/** One call as the simulator saw it, and what became of it. */
export interface Call {
  readonly request: ApiRequest
  readonly outcome: Outcome
}

/** A simulator with a face that records every call made through it. */
export interface RecordedSim {
  readonly sim: Simulator
  readonly face: SimulatorFace
  readonly calls: Array<Call>
}

/** A simulator seeded with the runtimes, recording every call. */
export const simOf = (options: SimulatorOptions = {}): RecordedSim => {
  const sim = new Simulator({ seed: 7, ...options, objects: [...runtimes(), ...(options.objects ?? [])] })
  const calls: Array<Call> = []
  const face: SimulatorFace = {
    handle: (request) => {
      const outcome = sim.handle(request)
      calls.push({ request, outcome })
      return outcome
    },
    now: () => sim.now(),
    advanceTo: (ms) => sim.advanceTo(ms)
  }
  return { sim, face, calls }
}

/** The same recorded simulator, its calls passed through `handle`, which may answer them itself or
 * change what the simulator answers (`next`). */
export const intercepted = (recorded: RecordedSim, handle: (request: ApiRequest, next: (request: ApiRequest) => Outcome) => Outcome): RecordedSim => {
  const face = recorded.face
  return { ...recorded, face: { ...face, handle: (request) => handle(request, (r) => face.handle(r)) } }
}

/** Acts on the store right after a successful (2xx) call of `verb` on `resource`, as a concurrent writer
 * would: after each such call, or only the first with `once`. */
export const afterCall = (recorded: RecordedSim, verb: string, resource: string, act: () => void, once = false): RecordedSim => {
  let acted = false
  return {
    ...recorded,
    face: {
      ...recorded.face,
      handle: (request) => {
        const outcome = recorded.face.handle(request)
        const succeeded = outcome.kind === "answered" && outcome.response.code < 300
        if (succeeded && request.verb === verb && request.resource === resource && !(once && acted)) {
          acted = true
          act()
        }
        return outcome
      }
    }
  }
}

/** Writes (create, patch, update, delete) among the recorded calls. */
export const writes = (calls: ReadonlyArray<Call>): ReadonlyArray<Call> => calls.filter((c) => c.request.verb !== "get" && c.request.verb !== "list")

/** Runs an effect on TestClock, moving the clock a second at a time until it ends (at most `maxMs`). */
export const runOnTestClock = <A, E>(effect: Effect.Effect<A, E>, maxMs = 600_000): Promise<Exit.Exit<A, E>> =>
  Effect.runPromise(
    Effect.gen(function* () {
      // Start logs every step; tests read the cluster instead.
      const fiber = yield* Effect.forkChild(Effect.provideService(effect, References.MinimumLogLevel, "Warn"))
      for (let elapsed = 0; elapsed <= maxMs; elapsed += 1000) {
        for (let i = 0; i < 5; i++) yield* Effect.yieldNow
        const exit = fiber.pollUnsafe()
        if (exit !== undefined) return exit
        yield* TestClock.adjust(1000)
      }
      yield* Fiber.interrupt(fiber)
      return yield* Effect.die(new Error(`still running after ${maxMs} ms of test time`))
    }).pipe(Effect.provide(TestClock.layer()))
  )

/** Runs Start on a recorded simulator with TestClock, sharing an InFlight memory across retries. */
export const runStart = (
  recorded: RecordedSim,
  backend: Backend,
  request: unknown,
  inFlight: InFlightShape = makeInFlight()
): Promise<Exit.Exit<StartResult, StartError>> =>
  runOnTestClock(
    start(backend, request).pipe(
      Effect.provide(Layer.merge(SimCluster(recorded.face, { callMs: backend.config.timeouts.callMs }), Layer.succeed(InFlight, inFlight)))
    )
  )

/** Runs several Starts of `requests` at once on one recorded simulator and one TestClock, as a supervisor
 * retrying while its first call hangs would: each gets its own Cluster layer, all share `inFlight`. */
export const runStartsTogether = (
  recorded: RecordedSim,
  backend: Backend,
  requests: ReadonlyArray<unknown>,
  inFlight: InFlightShape = makeInFlight()
): Promise<ReadonlyArray<Exit.Exit<StartResult, StartError>>> =>
  runOnTestClock(
    Effect.all(
      requests.map((request) =>
        Effect.exit(
          start(backend, request).pipe(
            Effect.provide(Layer.merge(SimCluster(recorded.face, { callMs: backend.config.timeouts.callMs }), Layer.succeed(InFlight, inFlight)))
          )
        )
      ),
      { concurrency: "unbounded" }
    )
  ).then((exit) => {
    if (Exit.isSuccess(exit)) return exit.value
    throw new Error(`the Starts did not finish: ${String(exit.cause)}`)
  })

/** The error of a failed Start, or a thrown assertion. */
export const errorOf = <A>(exit: Exit.Exit<A, StartError>): StartError => {
  if (Exit.isSuccess(exit)) throw new Error(`expected a failure, got ${JSON.stringify(exit.value)}`)
  const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (failure === undefined || failure._tag !== "Fail") throw new Error(`expected a typed failure, got ${String(exit.cause)}`)
  return failure.error
}

/** The value of a successful Start, or a thrown assertion naming the error. */
export const valueOf = <A>(exit: Exit.Exit<A, StartError>): A => {
  if (Exit.isSuccess(exit)) return exit.value
  throw new Error(`expected success, got ${JSON.stringify(errorOf(exit))}`)
}

/** The objects of a resource in the test namespace. */
export const stored = (recorded: RecordedSim, resource: string): ReadonlyArray<KubeObject> => recorded.sim.system.list(resource, namespace)

/** The deterministic name of job `n`'s TrainJob and copy. */
export const trainJobNameOf = (n: number, submission = 1): string => trainJobName(jobId(n), submission)

/** Does what Open does to job `name`, straight in the store: plain mode sets spec.suspend false; Kueue mode
 * removes dispatch's gate from the Workload and sets the admission check Ready. */
export const openInStore = (recorded: RecordedSim, config: BackendConfig, name: string): void => {
  const system = recorded.sim.system
  const job = system.get("trainjobs", namespace, name)
  if (job === undefined) throw new Error(`no TrainJob ${name} to open`)
  if (config.mode === "plain") {
    system.update("trainjobs", { ...job, spec: { ...(job["spec"] as object), suspend: false } })
    return
  }
  const workload = system.list("workloads", namespace, `kueue.x-k8s.io/job-uid=${String(job.metadata?.["uid"])}`)[0]
  if (workload === undefined) throw new Error(`no Workload for ${name} to open`)
  const { [admissionGatedBy]: _gate, ...annotations } = (workload.metadata?.["annotations"] ?? {}) as Record<string, string>
  const ungated = system.update("workloads", { ...workload, metadata: { ...workload.metadata, annotations } }).body as KubeObject
  const checks = ((ungated["status"] as { admissionChecks?: ReadonlyArray<Record<string, unknown>> } | undefined)?.admissionChecks ?? []).map((c) => ({ ...c, state: "Ready" }))
  system.updateStatus("workloads", { ...ungated, status: { ...(ungated["status"] as object), admissionChecks: checks } })
}

/** A stand-in for Kueue that creates the Workload of each TrainJob it serves (all by default) with or
 * without dispatch's gate and the admission check. */
export const scriptedKueue = (options: { gate: boolean; check: boolean; serves?: (name: string) => boolean }): Controller => ({
  name: "scripted-kueue",
  reconcile: (system) => {
    for (const job of system.list("trainjobs", namespace)) {
      const metadata = job.metadata as { name: string; uid: string }
      const workloadName = `trainjob-${metadata.name}-0a1b2`
      if (options.serves?.(metadata.name) === false || system.get("workloads", namespace, workloadName) !== undefined) continue
      const workload: KubeObject = {
        apiVersion: "kueue.x-k8s.io/v1beta1",
        kind: "Workload",
        metadata: {
          name: workloadName,
          namespace,
          labels: { [jobUidLabel]: metadata.uid },
          annotations: options.gate ? { [admissionGatedBy]: admissionGateName(configOf("kueue")) } : {},
          ownerReferences: [{ apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", name: metadata.name, uid: metadata.uid, controller: true }]
        },
        spec: { queueName: "team-queue", podSets: [{ name: "node", count: 1, template: { spec: { containers: [{ name: "node", image: "i" }] } } }] }
      }
      const created = system.create("workloads", workload)
      const stored = created.body as KubeObject
      if (options.check) {
        system.updateStatus("workloads", { ...stored, status: { admissionChecks: [{ name: "dispatch-check", state: "Pending", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" }] } })
      }
    }
  }
})

/** Kueue's create-time webhook as the scripted Kueue's companion: it closes each new TrainJob. */
export const suspendOnCreate = (recorded: RecordedSim): void =>
  recorded.sim.addAdmission({
    name: "scripted-kueue-webhook",
    resource: "trainjobs",
    admit: (operation, object) => ({ object: operation === "create" ? { ...object, spec: { ...(object["spec"] as object), suspend: true } } : object })
  })
