import { factoryOf, probeLifetimeMs, type Gate } from "@dispatch/effects"
import { decodeConfig, type BackendConfig } from "@dispatch/render"
import { Result } from "effect"
import type { DispatchContext } from "./DispatchContext.ts"
import { markProving, queuesToProve, releaseProbeLease, takeProbeLease, writeGate } from "../store/DispatchStore.ts"

/** How long a probe may hold its namespace: a probe is a Start and a Stop, each bounded by the config's timeouts. */
const probeLeaseMs = 15 * 60_000

/** Why a queue that is not open yet waits while its probe runs, and how long that may take. */
export const provingReason = (config: BackendConfig, since: string): string =>
  `the probe runs since ${since} in namespace ${config.namespace}; it waits up to ` +
  `${Math.ceil(probeLifetimeMs(config) / 1000)} s for a probe's objects already there (another probe's, or left by a process that died mid-probe) before removing them`

const proveOne = async (context: DispatchContext, queue: number, config: BackendConfig): Promise<void> => {
  const namespace = config.namespace
  // Another process proving this namespace will store its answer; this queue is looked at again next time.
  if (!(await takeProbeLease(context.db, namespace, context.instance, context.clock(), context.clock() + probeLeaseMs))) return
  try {
    // An open queue stays open while it is proven again; any other says why its jobs wait.
    await markProving(context.db, queue, provingReason(config, context.now()), context.now(), context.clock())
    const proved = await context.cluster.run(factoryOf(config))
    if (proved.kind === "abandoned") return
    const gate: Gate = proved.kind === "ok" ? proved.value.gate : { state: "closed", reason: proved.error.reasons.join("; ") }
    await writeGate(context.db, queue, gate, context.now(), context.clock())
  } finally {
    await releaseProbeLease(context.db, namespace, context.instance)
  }
}

/** Proves queues without holding up the dispatcher: probes of one namespace run one at a time (they share their
 * objects' names), probes of different namespaces at once, and a pass never waits for any of them. */
export interface QueueProver {
  /** Starts the Factory of every queue (`all`), or of those never proven and those not open proven `reproveMs` ago
   * or earlier, skipping namespaces whose probe is still running; returns how many queues it started proving. */
  readonly prove: (all: boolean, reproveMs: number) => Promise<number>
  /** Resolves once every probe started so far has ended. */
  readonly settled: () => Promise<void>
}

/** A prover for one dispatcher; `proven` is called after each probe stored its gate. */
export const queueProver = (context: DispatchContext, proven: () => void = () => undefined): QueueProver => {
  const running = new Map<string, Promise<void>>()
  return {
    prove: async (all, reproveMs) => {
      const queues = await queuesToProve(context.db, all, context.clock() - reproveMs)
      const byNamespace = new Map<string, Array<{ readonly id: number; readonly config: BackendConfig }>>()
      let started = 0
      for (const queue of queues) {
        const decoded = decodeConfig(queue.backend.config)
        if (Result.isFailure(decoded)) {
          await writeGate(context.db, queue.id, { state: "closed", reason: `the queue's config does not decode: ${decoded.failure.reasons.join("; ")}` }, context.now(), context.clock())
          started++
          continue
        }
        const namespace = decoded.success.namespace
        if (running.has(namespace)) continue
        byNamespace.set(namespace, [...(byNamespace.get(namespace) ?? []), { id: queue.id, config: decoded.success }])
      }
      for (const [namespace, members] of byNamespace) {
        started += members.length
        const run = (async () => {
          for (const member of members) {
            // A database failure leaves the queue not open: it is proven again after reproveMs.
            await proveOne(context, member.id, member.config).catch(() => undefined)
            proven()
          }
        })().finally(() => running.delete(namespace))
        running.set(namespace, run)
      }
      return started
    },
    settled: async () => {
      await Promise.all([...running.values()])
    }
  }
}
