// The simulator as a Cluster: the adapter that lets Start and the lifecycle run against a Simulator
// in-process. It lives with the simulator, not in @dispatch/effects, so that an application embedding the
// library installs no simulator code; @dispatch/effects is this entry point's (peer) dependency, and the
// simulator's own entry point never loads it.
import { Clock, Effect, Layer, Result } from "effect"
import {
  Cluster,
  type ClusterCall,
  ClusterError,
  type ClusterShape,
  clusterErrorOf,
  clusterOverTransport,
  describeCall,
  isSuccessCode,
  type KubeResource,
  type ObjectKey,
  type PodLogOptions,
  Pods
} from "@dispatch/effects"
import type { ApiRequest, KubeObject, Outcome, PropagationPolicy } from "../index.ts"

const asRecord = (value: unknown): Readonly<Record<string, unknown>> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined

const asArray = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

/** What SimCluster needs of the simulator: its in-process face and its clock, and for pod logs what a
 * pod's container has written (a face without it has no logs to read). */
export interface SimulatorFace {
  handle(request: ApiRequest): Outcome
  now(): number
  advanceTo(ms: number): void
  containerLog?(pod: KubeObject, container: string): ReadonlyArray<{ readonly time: number; readonly text: string }>
}

/** How SimCluster talks to the simulator. */
export interface SimClusterOptions {
  /** The call timeout: an unanswered call fails as Unanswered after this long on the Effect Clock. */
  readonly callMs: number
  /** Bearer token presented, when the simulator has auth on. */
  readonly token?: string
}

const requestOf = (call: ClusterCall, token: string | undefined): ApiRequest => {
  const propagation = call.verb === "delete" ? call.body?.["propagationPolicy"] : undefined
  return {
    verb: call.verb,
    group: call.kind.group,
    version: call.kind.version,
    resource: call.kind.plural,
    ...(call.namespace === undefined ? {} : { namespace: call.namespace }),
    ...(call.name === undefined ? {} : { name: call.name }),
    ...(call.status === true ? { subresource: "status" as const } : {}),
    ...(call.body === undefined ? {} : { body: call.body }),
    ...(call.verb === "patch" ? { patchType: "merge" as const } : {}),
    ...(call.labelSelector === undefined ? {} : { labelSelector: call.labelSelector }),
    ...(typeof propagation === "string" ? { propagationPolicy: propagation as PropagationPolicy } : {}),
    ...(token === undefined ? {} : { token })
  }
}

const unanswered = (call: ClusterCall): ClusterError => new ClusterError({ reason: "Unanswered", call: call.description })

/** The Cluster operations over a simulator, with the simulator's clock following the Effect Clock. */
export const makeSimCluster = (simulator: SimulatorFace, options: SimClusterOptions): Effect.Effect<ClusterShape> =>
  Effect.gen(function* () {
    // The Effect Clock (a TestClock starts at 0) and the simulator's clock have different origins: keep
    // the distance fixed so that moving one moves the other by the same amount.
    const offset = simulator.now() - (yield* Clock.currentTimeMillis)
    const send = (call: ClusterCall): Effect.Effect<unknown, ClusterError> =>
      Effect.gen(function* () {
        simulator.advanceTo((yield* Clock.currentTimeMillis) + offset)
        const outcome = simulator.handle(requestOf(call, options.token))
        if (outcome.kind === "refused") return yield* new ClusterError({ reason: "Unreachable", call: call.description })
        if (outcome.kind === "unanswered") {
          yield* Effect.sleep(options.callMs)
          return yield* unanswered(call)
        }
        const delay = outcome.delayMs ?? 0
        if (delay >= options.callMs) {
          yield* Effect.sleep(options.callMs)
          return yield* unanswered(call)
        }
        if (delay > 0) yield* Effect.sleep(delay)
        const { code, body, headers } = outcome.response
        return isSuccessCode(code) ? body : yield* clusterErrorOf(call.description, code, body, headers?.["Retry-After"])
      })
    const now = Effect.map(Clock.currentTimeMillis, (ms) => {
      simulator.advanceTo(ms + offset)
      return simulator.now()
    })
    const cluster: ClusterShape = clusterOverTransport(send, { now, podLog: (key, options, onLine) => simPodLog(simulator, cluster, now, key, options, onLine) })
    return cluster
  })

/** How often a followed log in-process reads the pod again, on the Effect Clock. */
const followEveryMs = 200

const badRequest = (description: string, message: string): ClusterError => clusterErrorOf(description, 400, { kind: "Status", code: 400, reason: "BadRequest", message })

// The pods/log subresource in-process, worded as the API server words its refusals: the pod is read
// through the simulator (faults and auth apply as to a get), its container chosen and checked, and the
// lines the container wrote selected by since and tail; a followed log reads the pod again until the
// container ends or the pod goes (or is replaced).
const simPodLog = (
  simulator: SimulatorFace,
  cluster: ClusterShape,
  now: Effect.Effect<number>,
  key: ObjectKey,
  options: PodLogOptions,
  onLine: (line: string) => void
): Effect.Effect<void, ClusterError> =>
  Effect.gen(function* () {
    const description = `${describeCall("get", Pods, key)}/log`
    const pod = yield* cluster.get(Pods, key)
    const containers = asArray(asRecord(pod["spec"])?.["containers"]).map((c) => String(asRecord(c)?.["name"] ?? ""))
    const container = options.container ?? (containers.length === 1 ? (containers[0] ?? "") : "")
    if (container === "") return yield* badRequest(description, `a container name must be specified for pod ${key.name}, choose one of: [${containers.join(" ")}]`)
    if (!containers.includes(container)) return yield* badRequest(description, `container ${container} is not valid for pod ${key.name}`)
    if (options.previous === true) return yield* badRequest(description, `previous terminated container "${container}" in pod "${key.name}" not found`)
    const state = (current: KubeResource) => asRecord(asArray(asRecord(current["status"])?.["containerStatuses"]).map(asRecord).find((c) => c?.["name"] === container)?.["state"])
    const started = state(pod)
    if (started === undefined || started["waiting"] !== undefined) return yield* badRequest(description, `container "${container}" in pod "${key.name}" is waiting to start: ContainerCreating`)
    if (simulator.containerLog === undefined) return yield* badRequest(description, "this simulator keeps no container logs")
    const since = options.sinceSeconds === undefined ? undefined : (yield* now) - options.sinceSeconds * 1000
    const selected = (current: KubeResource) => (simulator.containerLog?.(current as KubeObject, container) ?? []).filter((line) => since === undefined || line.time >= since)
    const first = selected(pod)
    for (const line of options.tailLines === undefined ? first : first.slice(Math.max(0, first.length - options.tailLines))) onLine(line.text)
    let sent = first.length
    let current: KubeResource | undefined = pod
    while (options.follow === true && current !== undefined && state(current)?.["terminated"] === undefined) {
      yield* Effect.sleep(followEveryMs)
      const again = yield* Effect.result(cluster.get(Pods, key))
      current = Result.isSuccess(again) && again.success.metadata.uid === pod.metadata.uid ? again.success : undefined
      if (current === undefined) break
      const lines = selected(current)
      for (const line of lines.slice(sent)) onLine(line.text)
      sent = Math.max(sent, lines.length)
    }
  })

/** Provides Cluster over a simulator's in-process face. */
export const SimCluster = (simulator: SimulatorFace, options: SimClusterOptions): Layer.Layer<Cluster> =>
  Layer.effect(Cluster, makeSimCluster(simulator, options))
