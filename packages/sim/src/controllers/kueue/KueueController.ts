// The simulated Kueue: keeps the configured AdmissionChecks Active, decides about every Workload in
// queue order (oldest first, each fitting Workload admitted even behind one that does not fit, as
// BestEffortFIFO does), then brings the TrainJobs in line with their Workloads.
import type { Controller, KubeObject, SystemClient } from "../../Api.ts"
import { keepAdmissionChecksActive } from "./AdmissionCheckObjects.ts"
import { asString, at, isDeleting, nameOf, sameJson } from "../shared/KubeFields.ts"
import { reconcileQueuedJobs } from "./KueueJobs.ts"
import type { KueueOptions } from "../Options.ts"
import { splitKey } from "../shared/ChangeQueue.ts"
import { addDemand, demandOf, usageWhere, type QueueUsage } from "./Quota.ts"
import { resolveQueue, seedQueues, writeQueueStatuses, type ResolvedQueue } from "./QueueObjects.ts"
import { updateObject, updateStatus } from "../shared/StoreWrites.ts"
import { decideWorkload } from "./WorkloadDecisions.ts"

const queueOrder = (a: KubeObject, b: KubeObject): number =>
  (asString(at(a, "metadata", "creationTimestamp")) ?? "").localeCompare(asString(at(b, "metadata", "creationTimestamp")) ?? "") ||
  nameOf(a).localeCompare(nameOf(b))

const reconcileWorkloads = (system: SystemClient, options: KueueOptions): void => {
  const workloads = [...system.list("workloads")].sort(queueOrder)
  const usage = new Map<string, QueueUsage>()
  const resolved = new Map<string, ResolvedQueue>()
  const queueOf = (workload: KubeObject): ResolvedQueue => {
    const where = `${asString(at(workload, "metadata", "namespace")) ?? ""}/${asString(at(workload, "spec", "queueName")) ?? ""}`
    const found = resolved.get(where) ?? resolveQueue(system, splitKey(where).namespace, splitKey(where).name, options)
    resolved.set(where, found)
    return found
  }
  for (const workload of workloads) {
    if (isDeleting(workload)) continue
    const { key, queue } = queueOf(workload)
    // Usage is counted per ClusterQueue (several LocalQueues may share one) in queue order.
    const held = usage.get(key) ?? usageWhere(workloads, (other) => queueOf(other).key === key)
    const decision = decideWorkload(workload, queue, held, system.now())
    usage.set(key, decision.reserves ? addDemand(held, demandOf(workload)) : held)
    const current = sameJson(decision.status, workload["status"] ?? {})
      ? workload
      : updateStatus(system, "workloads", { ...workload, status: decision.status })
    if (decision.deactivate && current !== undefined) {
      updateObject(system, "workloads", { ...current, spec: { ...(current["spec"] as object), active: false } })
    }
  }
  writeQueueStatuses(system, system.list("workloads"), demandOf)
}

/** Kueue's controllers, configured by `options`. */
export const kueueController = (options: KueueOptions): Controller => {
  // Kueue reads the clock only to stamp what it writes and to wait out the Workload delay: with nothing
  // written since, a pass before the next delay ends would decide the same again.
  let dueAt = Number.NEGATIVE_INFINITY
  return {
    name: "kueue.x-k8s.io/controller-manager",
    dueAt: () => dueAt,
    reconcile(system: SystemClient) {
      seedQueues(system, options)
      keepAdmissionChecksActive(system, options)
      reconcileWorkloads(system, options)
      dueAt = reconcileQueuedJobs(system, options)
    }
  }
}
