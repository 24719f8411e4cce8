// The whole path over HTTP: a job service with a dispatcher, reaching the simulator's HTTP face through
// KubeCluster (client-node), with a reporting workload posting back to the service.
import { torchRuntime as sharedTorchRuntime } from "../../../test/fixtures/TorchRuntime.ts"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { KubeCluster } from "@dispatch/effects"
import { kubeconfigFor, Simulator, startSimServer, type ApiRequest, type KubeObject, type Outcome, type SimServer, type SimulatorOptions } from "@dispatch/sim"
import { Effect, Layer } from "effect"
import type { DispatchOptions, JobServer } from "../src/index.ts"
import type { JobResponse } from "../src/wire/ApiSchemas.ts"
import { reportingWorkload, type ReportingWorkload } from "../src/dispatch/ReportingWorkload.ts"
import { client, entrypointBody, jobBody, started, tokens, type Client, type World } from "./Fixtures.ts"

/** The namespace and runtime every test queue uses (as in `queueBody`). */
export const namespace = "ml-team"
const runtimeName = "dioptra-torch"

/** A torch TrainingRuntime in the shape Trainer ships, in the test namespace. */
export const torchRuntime = (): KubeObject => sharedTorchRuntime({ name: runtimeName, namespace })

/** A queue body whose backend is the simulator, with timeouts short enough for tests, long enough for a busy machine. */
export const simQueueBody = (name: string, mode: "plain" | "kueue" = "plain") => {
  const runtime = { kind: "TrainingRuntime", name: runtimeName }
  const kueue = mode === "kueue" ? { kueue: { queue: kueueQueue, admissionCheck: kueueCheck } } : {}
  return {
    name,
    description: "simulated cluster",
    backend: { config: { namespace, mode, runtimes: [runtime], ...kueue, timeouts: { call: "5s", workload: "3s", callBound: "5s" } }, runtime, image: "example/worker:1" }
  }
}

/** The LocalQueue and admission check of Kueue-mode test queues. */
export const kueueQueue = "team-queue"
const kueueCheck = "dispatch-check"

/** The simulated Kueue Kueue-mode queues need: one LocalQueue whose ClusterQueue has dispatch's check. */
export const simKueue = { queues: { [kueueQueue]: { admissionChecks: [kueueCheck] } } }

/** One call the simulator served. */
export interface Served {
  readonly request: ApiRequest
  readonly outcome: Outcome
}

/** A service clock: real time plus a skip the test controls, so backoffs and leases can be jumped over. */
export const skippingClock = () => {
  let skipped = 0
  return { now: () => Date.now() + skipped, skip: (ms: number) => void (skipped += ms) }
}

/** The simulated cluster: the simulator, its HTTP face, a kubeconfig for it and every call it served. */
export interface SimWorld {
  readonly sim: Simulator
  readonly server: SimServer
  readonly calls: Array<Served>
  readonly workload: ReportingWorkload
  /** A KubeCluster layer on the simulator's HTTP face. */
  readonly cluster: DispatchOptions["cluster"]
  readonly close: () => Promise<void>
}

/** How many sim ms pass per real ms: runs of seconds take a fraction of one. */
export const simSpeed = 10

/** Decides a call before the simulator sees it: an outcome to give instead (nothing applied), or undefined to serve it. */
export type Intercept = (request: ApiRequest) => Outcome | undefined

/** The probe's objects' names (JobID zero) start with this. */
export const probeNamePrefix = "dj-00000000000000000000000000"

/**
 * Starts a simulator (with the test runtime and a reporting workload) and its HTTP face. `intercept` may take
 * calls away from it, as a process killed before its call arrives would. `callMs` is the service's call
 * timeout: an answer the simulator sends is never late by this much, however busy the machine (raise it
 * where many calls are in flight at once); a dropped one costs this long.
 */
export const simWorld = async (options: SimulatorOptions = {}, intercept: Intercept = () => undefined, callMs = 5000): Promise<SimWorld> => {
  const workload = reportingWorkload()
  const sim = new Simulator({
    seed: 3,
    ...options,
    objects: [torchRuntime(), ...(options.objects ?? [])],
    controllers: { ...options.controllers, trainer: { runTimeMs: 3000, onRun: workload.onRun, ...options.controllers?.trainer } }
  })
  const calls: Array<Served> = []
  const start = performance.now()
  const server = await startSimServer({
    simulator: {
      handle: (request) => {
        const outcome = intercept(request) ?? sim.handle(request)
        calls.push({ request, outcome })
        return outcome
      },
      watch: sim.watch.bind(sim),
      now: () => sim.now(),
      advanceTo: (ms) => sim.advanceTo(ms)
    },
    tickMs: 20,
    realTime: () => start + (performance.now() - start) * simSpeed
  })
  const dir = mkdtempSync(join(tmpdir(), "dispatch-server-sim-"))
  const path = join(dir, "kubeconfig")
  writeFileSync(path, kubeconfigFor(server))
  return {
    sim,
    server,
    calls,
    workload,
    cluster: Layer.orDie(KubeCluster({ kubeconfigPath: path, callMs })) as DispatchOptions["cluster"],
    close: async () => {
      await workload.settled()
      await server.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** A service dispatching to a simulated world, and alice's client on it. */
export interface DispatchingService {
  readonly server: JobServer
  readonly alice: Client
}

/** Starts a service that dispatches to `world`, polling every 30 ms with short backoffs. */
export const dispatchingService = async (
  world: SimWorld,
  options: { readonly clock?: () => number; readonly databaseUrl?: string; readonly dataDir?: string; readonly dispatch?: Partial<DispatchOptions> } = {}
): Promise<DispatchingService> => {
  const server = await started({
    ...(options.clock === undefined ? { clock: () => Date.now() } : { clock: options.clock }),
    ...(options.databaseUrl === undefined ? {} : { databaseUrl: options.databaseUrl }),
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    dispatch: { cluster: world.cluster, pollMs: 30, syncMs: 100, backoff: { baseMs: 200, maxMs: 2000 }, ...options.dispatch }
  })
  return { server, alice: client(server.url, tokens.alice) }
}

/**
 * Polls `read` every 50 ms until `done` holds of its value, for at most `maxMs` (seconds on an idle
 * machine; the bound survives a far slower one); fails with the last value.
 */
export const eventually = async <A>(read: () => Promise<A>, done: (value: A) => boolean, maxMs = 45_000): Promise<A> => {
  const deadline = Date.now() + maxMs
  let last = await read()
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`not reached within ${maxMs} ms; last: ${JSON.stringify(last)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
    last = await read()
  }
  return last
}

/** The TrainJob creates the simulator applied (answered 201, or dropped after applying), by name, probes left out. */
export const trainJobCreates = (calls: ReadonlyArray<Served>): ReadonlyMap<string, number> => {
  const counts = new Map<string, number>()
  for (const { request, outcome } of calls) {
    if (request.verb !== "create" || request.resource !== "trainjobs") continue
    const applied = outcome.kind === "unanswered" || (outcome.kind === "answered" && outcome.response.code === 201)
    const name = String((request.body as { metadata?: { name?: unknown } } | undefined)?.metadata?.name ?? "")
    if (applied && !name.startsWith(probeNamePrefix)) counts.set(name, (counts.get(name) ?? 0) + 1)
  }
  return counts
}

/** Registers a queue on the simulator (or `queue` as given), an entrypoint on it and an experiment holding it. */
export const registerSimWorld = (call: Client, tag: string, queue: unknown = simQueueBody(`q-${tag}`)): Promise<World> =>
  call.typed((c) =>
    Effect.gen(function* () {
      const q = yield* c.queues.create({ payload: queue as never })
      const entrypoint = yield* c.entrypoints.create({ payload: entrypointBody(`ep-${tag}`, [q.id]) as never })
      const experiment = yield* c.experiments.create({ payload: { name: `ex-${tag}`, entrypoints: [entrypoint.id] } })
      return { queue: q.id, entrypoint: entrypoint.id, experiment: experiment.id }
    })
  )

/** Submits a job on a registered world; fails the test unless it is created. */
export const submit = (call: Client, world: World, extra: Record<string, unknown> = {}): Promise<{ readonly id: number }> =>
  call.typed((c) => c.jobs.create({ params: { id: world.experiment }, payload: jobBody(world.entrypoint, world.queue, extra) as never }))

/** Polls a job until `done` holds of it. */
export const jobWhen = (call: Client, id: number, done: (job: JobResponse) => boolean, maxMs?: number) =>
  eventually(() => call.typed((c) => c.jobs.read({ params: { id } })), done, maxMs)

/** The name of the TrainJob a job was dispatched to; fails the test if it has none. */
export const trainJobName = (job: JobResponse): string => {
  const name = job.dispatch.trainJob?.name
  if (name === undefined) throw new Error(`job ${job.id} has no TrainJob: ${JSON.stringify(job.dispatch)}`)
  return name
}
