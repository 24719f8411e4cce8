import { factoryOf, type Gate } from "@dispatch/effects"
import { decodeConfig } from "@dispatch/render"
import { Result } from "effect"
import type { DispatchContext } from "./DispatchContext.ts"
import { queuesToProve, releaseProbeLease, takeProbeLease, writeGate } from "./DispatchStore.ts"

/** How long a probe may hold its namespace: a probe is a Start and a Stop, each bounded by the config's timeouts. */
const probeLeaseMs = 15 * 60_000

const proveOne = async (context: DispatchContext, queue: number, config: unknown): Promise<void> => {
  const decoded = decodeConfig(config)
  if (Result.isFailure(decoded)) {
    await writeGate(context.db, queue, { state: "closed", reason: `the queue's config does not decode: ${decoded.failure.reasons.join("; ")}` }, context.now(), context.clock())
    return
  }
  const namespace = decoded.success.namespace
  // Another process proving this namespace will store its answer; this queue is looked at again next time.
  if (!(await takeProbeLease(context.db, namespace, context.instance, context.clock(), context.clock() + probeLeaseMs))) return
  try {
    const proved = await context.cluster.run(factoryOf(decoded.success))
    if (proved.kind === "abandoned") return
    const gate: Gate = proved.kind === "ok" ? proved.value.gate : { state: "closed", reason: proved.error.reasons.join("; ") }
    await writeGate(context.db, queue, gate, context.now(), context.clock())
  } finally {
    await releaseProbeLease(context.db, namespace, context.instance)
  }
}

/** Runs the Factory of every queue (`all`), or of those never proven and those not open proven `reproveMs` ago or
 * earlier. One at a time: probes in one namespace share their objects' names. Returns the queues looked at. */
export const proveQueues = async (context: DispatchContext, all: boolean, reproveMs: number): Promise<number> => {
  const queues = await queuesToProve(context.db, all, context.clock() - reproveMs)
  for (const queue of queues) await proveOne(context, queue.id, queue.backend.config)
  return queues.length
}
