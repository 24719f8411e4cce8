import { Clock, Effect, Layer } from "effect"
import type { ApiRequest, Outcome, PropagationPolicy } from "@dispatch/sim"
import { ClusterError } from "./ClusterError.ts"
import { Cluster, type ClusterShape } from "./Cluster.ts"
import { clusterOverTransport, type ClusterCall } from "./ClusterCall.ts"
import { clusterErrorOf, isSuccessCode } from "./StatusMapping.ts"

/** What SimCluster needs of the simulator: its in-process face and its clock. */
export interface SimulatorFace {
  handle(request: ApiRequest): Outcome
  now(): number
  advanceTo(ms: number): void
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
        const { code, body } = outcome.response
        return isSuccessCode(code) ? body : yield* clusterErrorOf(call.description, code, body)
      })
    return clusterOverTransport(send)
  })

/** Provides Cluster over a simulator's in-process face. */
export const SimCluster = (simulator: SimulatorFace, options: SimClusterOptions): Layer.Layer<Cluster> =>
  Layer.effect(Cluster, makeSimCluster(simulator, options))
