// Kueue's LocalQueue and ClusterQueue objects: the pairs the options seed, the queue a Workload is
// admitted by (its LocalQueue's ClusterQueue, with that ClusterQueue's nominal quotas and admission
// checks; the options' queue when no LocalQueue object exists), and the counts Kueue writes into
// their status.
import type { KubeObject, SystemClient } from "../../Api.ts"
import { parseQuantity } from "../../kinds/core/Quantity.ts"
import { isConditionTrue, readConditions, setCondition } from "../shared/Conditions.ts"
import { asArray, asRecord, asString, at, sameJson, type JsonRecord } from "../shared/KubeFields.ts"
import type { KueueOptions, KueueQueueOptions, SeedQueue } from "../Options.ts"
import { holdsQuota } from "./Quota.ts"
import { createObject, updateStatus } from "../shared/StoreWrites.ts"
import { formatTimestamp } from "../shared/Timestamps.ts"
import { gpuResource, kueueApiVersion } from "../shared/WellKnown.ts"

/** The flavor seeded ClusterQueues offer their quota in. */
export const defaultFlavor = "default-flavor"

/** The ClusterQueue object a seed describes. */
export const seededClusterQueue = (seed: SeedQueue): KubeObject => {
  const quota = seed.quota ?? {}
  const resources = [
    ...(quota.cpu === undefined ? [] : [{ name: "cpu", nominalQuota: String(quota.cpu) }]),
    ...(quota.memory === undefined ? [] : [{ name: "memory", nominalQuota: String(quota.memory) }]),
    ...(quota.gpus === undefined ? [] : [{ name: gpuResource, nominalQuota: String(quota.gpus) }])
  ]
  return {
    apiVersion: kueueApiVersion,
    kind: "ClusterQueue",
    metadata: { name: seed.clusterQueue },
    spec: {
      namespaceSelector: {},
      queueingStrategy: "BestEffortFIFO",
      resourceGroups: resources.length === 0 ? [] : [{ coveredResources: resources.map((r) => r.name), flavors: [{ name: defaultFlavor, resources }] }],
      ...(seed.admissionChecks === undefined || seed.admissionChecks.length === 0 ? {} : { admissionChecks: [...seed.admissionChecks] })
    }
  }
}

/** Creates the seeded queue pairs that are missing. */
export const seedQueues = (system: SystemClient, options: KueueOptions): void => {
  for (const seed of options.seedQueues ?? []) {
    const namespace = seed.namespace ?? "default"
    if (system.get("clusterqueues", undefined, seed.clusterQueue) === undefined) createObject(system, "clusterqueues", seededClusterQueue(seed))
    if (system.get("localqueues", namespace, seed.localQueue) === undefined) {
      createObject(system, "localqueues", { apiVersion: kueueApiVersion, kind: "LocalQueue", metadata: { name: seed.localQueue, namespace }, spec: { clusterQueue: seed.clusterQueue } })
    }
  }
}

/** A ClusterQueue's nominal quotas summed over its flavors, and its admission checks. */
export const clusterQueueQuota = (clusterQueue: KubeObject): KueueQueueOptions => {
  const totals: Record<string, number> = {}
  for (const group of asArray(at(clusterQueue, "spec", "resourceGroups"))) {
    for (const flavor of asArray(at(group, "flavors"))) {
      for (const resource of asArray(at(flavor, "resources"))) {
        const name = asString(at(resource, "name"))
        const value = parseQuantity(at(resource, "nominalQuota"))
        if (name !== undefined && value !== undefined) totals[name] = (totals[name] ?? 0) + value
      }
    }
  }
  const checks = [
    ...asArray(at(clusterQueue, "spec", "admissionChecks")).flatMap((c) => (typeof c === "string" ? [c] : [])),
    ...asArray(at(clusterQueue, "spec", "admissionChecksStrategy", "admissionChecks")).flatMap((c) => {
      const name = asString(at(c, "name"))
      return name === undefined ? [] : [name]
    })
  ]
  return {
    clusterQueue: asString(at(clusterQueue, "metadata", "name")) ?? "",
    ...(totals["cpu"] === undefined ? {} : { cpu: totals["cpu"] }),
    ...(totals["memory"] === undefined ? {} : { memory: totals["memory"] }),
    ...(totals[gpuResource] === undefined ? {} : { gpus: totals[gpuResource] }),
    ...(checks.length === 0 ? {} : { admissionChecks: checks })
  }
}

/** The queue a Workload is admitted by, and the key its usage is counted under. */
export interface ResolvedQueue {
  readonly key: string
  readonly queue: KueueQueueOptions | undefined
}

/** The queue `queueName` in `namespace` resolves to: a LocalQueue object's ClusterQueue, else the options' queue. */
export const resolveQueue = (system: SystemClient, namespace: string, queueName: string, options: KueueOptions): ResolvedQueue => {
  const localQueue = system.get("localqueues", namespace, queueName)
  if (localQueue === undefined) return { key: `options/${queueName}`, queue: options.queues?.[queueName] }
  const name = asString(at(localQueue, "spec", "clusterQueue")) ?? ""
  const clusterQueue = system.get("clusterqueues", undefined, name)
  return { key: `clusterqueue/${name}`, queue: clusterQueue === undefined ? undefined : clusterQueueQuota(clusterQueue) }
}

const isPending = (workload: KubeObject): boolean => {
  const conditions = readConditions(at(workload, "status", "conditions"))
  return !holdsQuota(workload) && !isConditionTrue(conditions, "Finished") && at(workload, "spec", "active") !== false
}
const isAdmitted = (workload: KubeObject): boolean =>
  holdsQuota(workload) && isConditionTrue(readConditions(at(workload, "status", "conditions")), "Admitted")

const withCounts = (object: KubeObject, workloads: ReadonlyArray<KubeObject>, now: number, extra: JsonRecord): JsonRecord => {
  const status = asRecord(object["status"]) ?? {}
  const conditions = setCondition(readConditions(status["conditions"]), { type: "Active", status: "True", reason: "Ready", message: "Can submit new workloads to localQueue" }, formatTimestamp(now), 16)
  return {
    ...status,
    conditions,
    pendingWorkloads: workloads.filter(isPending).length,
    reservingWorkloads: workloads.filter(holdsQuota).length,
    admittedWorkloads: workloads.filter(isAdmitted).length,
    ...extra
  }
}

const usageList = (workloads: ReadonlyArray<KubeObject>, demand: (w: KubeObject) => { gpus: number; cpu: number; memory: number }) => {
  const total = workloads.filter(holdsQuota).map(demand).reduce((a, b) => ({ gpus: a.gpus + b.gpus, cpu: a.cpu + b.cpu, memory: a.memory + b.memory }), { gpus: 0, cpu: 0, memory: 0 })
  return [{ name: defaultFlavor, resources: [{ name: "cpu", total: String(total.cpu) }, { name: "memory", total: String(total.memory) }, { name: gpuResource, total: String(total.gpus) }] }]
}

/** Writes every LocalQueue's and ClusterQueue's counts of pending, reserving and admitted Workloads. */
export const writeQueueStatuses = (
  system: SystemClient,
  workloads: ReadonlyArray<KubeObject>,
  demand: (w: KubeObject) => { gpus: number; cpu: number; memory: number }
): void => {
  const now = system.now()
  const byClusterQueue = new Map<string, Array<KubeObject>>()
  for (const localQueue of system.list("localqueues")) {
    const namespace = asString(at(localQueue, "metadata", "namespace"))
    const name = asString(at(localQueue, "metadata", "name"))
    const mine = workloads.filter((w) => asString(at(w, "metadata", "namespace")) === namespace && asString(at(w, "spec", "queueName")) === name)
    const clusterQueue = asString(at(localQueue, "spec", "clusterQueue")) ?? ""
    byClusterQueue.set(clusterQueue, [...(byClusterQueue.get(clusterQueue) ?? []), ...mine])
    const next = withCounts(localQueue, mine, now, { flavorsReservation: usageList(mine, demand) })
    if (!sameJson(next, localQueue["status"] ?? {})) updateStatus(system, "localqueues", { ...localQueue, status: next })
  }
  for (const clusterQueue of system.list("clusterqueues")) {
    const mine = byClusterQueue.get(asString(at(clusterQueue, "metadata", "name")) ?? "") ?? []
    const next = withCounts(clusterQueue, mine, now, { flavorsReservation: usageList(mine, demand), flavorsUsage: usageList(mine.filter(isAdmitted), demand) })
    if (!sameJson(next, clusterQueue["status"] ?? {})) updateStatus(system, "clusterqueues", { ...clusterQueue, status: next })
  }
}
