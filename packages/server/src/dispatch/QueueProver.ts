import { factoryOf, probeLifetimeMs, type Gate } from "@dispatch/effects"
import { decodeConfig, type BackendConfig } from "@dispatch/render"
import { Effect, FiberMap, Result, Scope } from "effect"
import type { DispatchContext } from "./DispatchContext.ts"
import type { SqlClient } from "effect/sql"
import { storeGate } from "./DispatchContext.ts"
import { queueGates } from "../store/QueueGates.ts"

/** How long a probe may hold its namespace: a probe is a Start and a Stop, each bounded by the config's timeouts. */
const probeLeaseMs = 15 * 60_000

/** Why a queue that is not open yet waits while its probe runs, and how long that may take. */
export const provingReason = (config: BackendConfig, since: string): string =>
  `the probe runs since ${since} in namespace ${config.namespace}; it waits up to ` +
  `${Math.ceil(probeLifetimeMs(config) / 1000)} s for a probe's objects already there (another probe's, or left by a process that died mid-probe) before removing them`

const proveOne = (context: DispatchContext, queue: number, config: BackendConfig): Effect.Effect<void, unknown, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const namespace = config.namespace
    const gates = yield* queueGates
    // Another process proving this namespace will store its answer; this queue is looked at again next time.
    if (!(yield* gates.takeProbeLease(namespace, context.instance, context.clock(), context.clock() + probeLeaseMs))) return
    yield* Effect.ensuring(
      Effect.gen(function* () {
        // An open queue stays open while it is proven again; any other says why its jobs wait.
        yield* gates.markProving({ queue, reason: provingReason(config, context.now()), at: context.now(), atMs: context.clock() })
        const proved = yield* context.cluster.run(factoryOf(config))
        if (proved.kind === "abandoned") return
        const gate: Gate = proved.kind === "ok" ? proved.value.gate : { state: "closed", reason: proved.error.reasons.join("; ") }
        yield* storeGate(queue, gate, context.now(), context.clock())
        // An operator reads why a queue does not open (a permission the cluster refused, named) in the log too.
        if (gate.state !== "open") context.log?.(`dispatch prover: queue ${queue} in namespace ${namespace}: ${gate.state}: ${gate.reason}`)
      }),
      Effect.ignore(gates.releaseProbeLease(namespace, context.instance))
    )
  })

/** Proves queues without holding up the dispatcher: probes of one namespace run one at a time (they share their
 * objects' names), probes of different namespaces at once, each namespace's a fiber of the dispatcher's scope, and a
 * pass never waits for any of them. */
export interface QueueProver {
  /** Starts the Factory of every queue (`all`), or of those never proven and those not open proven `reproveMs` ago
   * or earlier, skipping namespaces whose probe is still running; answers how many queues it started proving. */
  readonly prove: (all: boolean, reproveMs: number) => Effect.Effect<number, unknown, SqlClient.SqlClient>
  /** Ends once every probe started so far has ended. */
  readonly settled: Effect.Effect<void>
}

/** A prover for one dispatcher, its probes fibers of the scope it is made in; `proven` is called after each probe
 * stored its gate (and each gate stored not open is logged, with its reason). */
export const makeQueueProver = (context: DispatchContext, proven: () => void = () => undefined): Effect.Effect<QueueProver, never, Scope.Scope> =>
  Effect.gen(function* () {
    const running = yield* FiberMap.make<string, void, never>()
    return {
      prove: (all, reproveMs) =>
        Effect.gen(function* () {
          const gates = yield* queueGates
          const queues = yield* gates.queuesToProve(all, context.clock() - reproveMs)
          const byNamespace = new Map<string, Array<{ readonly id: number; readonly config: BackendConfig }>>()
          let started = 0
          for (const queue of queues) {
            const decoded = decodeConfig(queue.backend.config)
            if (Result.isFailure(decoded)) {
              const reason = `the queue's config does not decode: ${decoded.failure.reasons.join("; ")}`
              yield* storeGate(queue.id, { state: "closed", reason }, context.now(), context.clock())
              started++
              continue
            }
            const namespace = decoded.success.namespace
            if (FiberMap.hasUnsafe(running, namespace)) continue
            byNamespace.set(namespace, [...(byNamespace.get(namespace) ?? []), { id: queue.id, config: decoded.success }])
          }
          for (const [namespace, members] of byNamespace) {
            started += members.length
            // A database failure leaves the queue not open: it is proven again after reproveMs.
            const probes = Effect.forEach(members, (member) => Effect.andThen(Effect.ignore(proveOne(context, member.id, member.config)), Effect.sync(proven)), { discard: true })
            yield* FiberMap.run(running, namespace, { onlyIfMissing: true })(probes)
          }
          return started
        }),
      settled: FiberMap.awaitEmpty(running)
    }
  })
