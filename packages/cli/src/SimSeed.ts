// A simulator made ready for dispatch: the controllers of the mode, the namespaces the seed objects and
// the config need (a fresh cluster has only "default"), then the seed objects themselves. Shared by
// `dispatch sim serve` and every command's `--sim`.
import type { BackendConfig } from "@dispatch/render"
import { type ApiRequest, type ControllerOptions, type SeedQueue, type ServedSimulator, Simulator, type SimulatorOptions, StoreJournalError } from "@dispatch/sim"
import type { SeedObject } from "./RuntimeManifests.ts"
import type { QueueQuota, SimMode } from "./SimServeArgs.ts"

/** The Kueue queue and admission check a Kueue-mode simulator serves. */
export interface KueueSetup {
  readonly queue: string
  readonly admissionCheck: string
}

/** The ClusterQueue a quota names when no --cluster-queue is given. */
export const defaultClusterQueue = "cluster-queue"

/** What the simulator's controllers do beyond the mode: run containers for real, and a quota'd queue. */
export interface SimExtras {
  readonly exec?: boolean
  readonly queue?: QueueQuota
  /** The namespace of the seeded LocalQueue: the config's (default "default"). */
  readonly namespace?: string
}

const seedQueueOf = (kueue: KueueSetup, queue: QueueQuota, namespace: string | undefined): SeedQueue => ({
  localQueue: kueue.queue,
  ...(namespace === undefined ? {} : { namespace }),
  clusterQueue: queue.clusterQueue ?? defaultClusterQueue,
  quota: { ...(queue.cpu === undefined ? {} : { cpu: queue.cpu }), ...(queue.memory === undefined ? {} : { memory: queue.memory }), ...(queue.gpus === undefined ? {} : { gpus: queue.gpus }) },
  admissionChecks: [kueue.admissionCheck]
})

/**
 * The controller options of a mode: Trainer always; Kueue with one queue gated by one admission check,
 * and with a quota its LocalQueue and ClusterQueue as objects; with exec, containers as child processes.
 */
export const controllersFor = (mode: SimMode, kueue: KueueSetup | undefined, extras: SimExtras = {}): ControllerOptions => ({
  ...(mode === "kueue" && kueue !== undefined
    ? {
        kueue: {
          queues: { [kueue.queue]: { admissionChecks: [kueue.admissionCheck] } },
          admissionChecks: [kueue.admissionCheck],
          ...(extras.queue === undefined ? {} : { seedQueues: [seedQueueOf(kueue, extras.queue, extras.namespace)] })
        }
      }
    : {}),
  ...(extras.exec === true ? { workloads: { exec: true } } : {})
})

/** The bearer token of `sim serve --read-only`'s kubeconfig: it may get, list and watch, nothing else. */
export const readOnlyToken = "dispatch-sim-reader"

/** The auth of `sim serve --read-only`. */
export const readOnlyAuth = { tokens: { [readOnlyToken]: ["get", "list", "watch"] } } as const

/** The simulator as `sim serve --read-only` serves it: a request without a token acts as `token`.
 * kubectl sends no bearer token to an http:// server, so without this it could not read at all; since
 * every identity of a read-only server may only read, an anonymous reader grants nothing more. */
export const anonymousActsAs = (simulator: ServedSimulator, token: string): ServedSimulator => {
  const identified = (request: ApiRequest): ApiRequest => (request.token === undefined ? { ...request, token } : request)
  const review = simulator.selfReview?.bind(simulator)
  const serve = simulator.serve?.bind(simulator)
  return {
    handle: (request) => simulator.handle(identified(request)),
    ...(serve === undefined ? {} : { serve: (request) => serve(identified(request)) }),
    watch: (request, onEvent) => simulator.watch(identified(request), onEvent),
    now: () => simulator.now(),
    advanceTo: (ms) => simulator.advanceTo(ms),
    ...(review === undefined ? {} : { selfReview: (kind, presented, body) => review(kind, presented ?? token, body) }),
    // Forwarded so pods/log serves what a container really wrote (with exec), not a synthetic log.
    containerLog: (pod, container) => simulator.containerLog?.(pod, container) ?? []
  }
}

/** The controllers a config's mode needs. */
export const controllersForConfig = (config: BackendConfig, extras: SimExtras = {}): ControllerOptions => controllersFor(config.mode, config.kueue, { namespace: config.namespace, ...extras })

const namespaceOf = (seed: SeedObject): string | undefined => {
  if (!seed.resource.namespaced) return undefined
  const namespace = seed.object.metadata?.["namespace"]
  return typeof namespace === "string" ? namespace : "default"
}

/**
 * A simulator with `objects` created in it, or every object it refused, each named by its source. A
 * simulator that resumed its journal keeps the objects it held: only those it lacks are created; a
 * journal it cannot resume (objects of a resource it does not serve) is answered as `unusableState`.
 */
export const seededSimulator = (
  options: Pick<SimulatorOptions, "controllers" | "auth" | "rbac" | "faults" | "journal" | "startTime">,
  objects: ReadonlyArray<SeedObject>,
  namespaces: ReadonlyArray<string> = []
): { readonly simulator: Simulator } | { readonly problems: ReadonlyArray<string>; readonly unusableState?: true } => {
  let simulator: Simulator
  try {
    simulator = new Simulator(options)
  } catch (cause) {
    if (cause instanceof StoreJournalError) return { problems: [cause.message], unusableState: true }
    throw cause
  }
  const declared = new Set(objects.filter((o) => o.resource.kind === "Namespace").map((o) => String(o.object.metadata?.["name"])))
  const needed = new Set([...namespaces, ...objects.flatMap((o) => namespaceOf(o) ?? [])])
  for (const name of needed) {
    if (!declared.has(name) && simulator.system.get("namespaces", undefined, name) === undefined) {
      simulator.system.create("namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } })
    }
  }
  // Namespaces first, so that objects in them can be created whatever the order of the files.
  const ordered = [...objects].sort((a, b) => Number(b.resource.kind === "Namespace") - Number(a.resource.kind === "Namespace"))
  const problems = ordered.flatMap(({ resource, object, source }) => {
    const metadata = object.metadata ?? {}
    const placed = resource.namespaced && metadata["namespace"] === undefined ? { ...object, metadata: { ...metadata, namespace: "default" } } : object
    if (simulator.resumed && simulator.system.get(resource.plural, resource.namespaced ? String(placed.metadata?.["namespace"]) : undefined, String(metadata["name"])) !== undefined) return []
    const response = simulator.system.create(resource.plural, placed)
    if (response.code < 300) return []
    const body = response.body as { readonly message?: unknown } | null
    return [`${source}: refused by the simulator (${response.code}): ${String(body?.message ?? "")}`]
  })
  return problems.length > 0 ? { problems } : { simulator }
}
