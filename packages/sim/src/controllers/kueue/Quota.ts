// Queue quotas: what the Workloads holding a reservation in a queue use (GPUs, CPU, memory and a
// workload count), and whether one more fits.
import type { KubeObject } from "../../Api.ts"
import { parseQuantity } from "../../kinds/core/Quantity.ts"
import { isConditionTrue, readConditions } from "../shared/Conditions.ts"
import { asArray, asNumber, asString, at } from "../shared/KubeFields.ts"
import type { KueueQueueOptions } from "../Options.ts"
import { gpusOfPodSets } from "./PodSets.ts"

/** What a queue's reserving Workloads hold (cpu in cores and memory in bytes, when counted). */
export interface QueueUsage {
  readonly gpus: number
  readonly workloads: number
  readonly cpu?: number
  readonly memory?: number
}

/** What one Workload requests of each counted resource. */
export interface Demand {
  readonly gpus: number
  readonly cpu: number
  readonly memory: number
}

/** Whether a Workload holds quota: reserved and not finished. */
export const holdsQuota = (workload: KubeObject): boolean => {
  const conditions = readConditions(at(workload, "status", "conditions"))
  return isConditionTrue(conditions, "QuotaReserved") && !isConditionTrue(conditions, "Finished")
}

/** GPUs a Workload requests. */
export const gpuDemand = (workload: KubeObject): number => gpusOfPodSets(at(workload, "spec", "podSets"))

// One resource's requests (else limits) over a pod template's containers.
const perPod = (template: unknown, resource: string): number =>
  asArray(at(template, "spec", "containers")).reduce<number>(
    (total, container) => total + (parseQuantity(at(container, "resources", "requests", resource) ?? at(container, "resources", "limits", resource)) ?? 0),
    0
  )

/** What a Workload requests: every pod set's count times its pod's requests. */
export const demandOf = (workload: KubeObject): Demand => {
  const podSets = asArray(at(workload, "spec", "podSets"))
  const sum = (resource: string) => podSets.reduce<number>((total, podSet) => total + (asNumber(at(podSet, "count")) ?? 1) * perPod(at(podSet, "template"), resource), 0)
  return { gpus: gpuDemand(workload), cpu: sum("cpu"), memory: sum("memory") }
}

/** What the quota-holding Workloads among `workloads` that `inQueue` picks hold. */
export const usageWhere = (workloads: ReadonlyArray<KubeObject>, inQueue: (workload: KubeObject) => boolean): QueueUsage =>
  workloads
    .filter((workload) => inQueue(workload) && holdsQuota(workload))
    .reduce<QueueUsage>((usage, workload) => addDemand(usage, demandOf(workload)), { gpus: 0, workloads: 0, cpu: 0, memory: 0 })

/** What the Workloads of LocalQueue `queue` among `workloads` hold. */
export const usageOf = (workloads: ReadonlyArray<KubeObject>, queue: string): QueueUsage =>
  usageWhere(workloads, (workload) => asString(at(workload, "spec", "queueName")) === queue)

/** Usage after one more Workload demanding `gpus`. */
export const addUsage = (usage: QueueUsage, gpus: number): QueueUsage => ({ ...usage, gpus: usage.gpus + gpus, workloads: usage.workloads + 1 })

/** Usage after one more Workload with this demand. */
export const addDemand = (usage: QueueUsage, demand: Demand): QueueUsage => ({
  gpus: usage.gpus + demand.gpus,
  workloads: usage.workloads + 1,
  cpu: (usage.cpu ?? 0) + demand.cpu,
  memory: (usage.memory ?? 0) + demand.memory
})

const round = (n: number): string => String(Math.round(n * 1000) / 1000)

/** Why one more Workload demanding `gpus` (and `demand`'s cpu and memory) does not fit the queue's quota (undefined when it fits). */
export const quotaShortfall = (quota: KueueQueueOptions, usage: QueueUsage, gpus: number, demand?: Demand): string | undefined => {
  if (quota.workloads !== undefined && usage.workloads + 1 > quota.workloads) {
    return `insufficient quota: the queue admits at most ${quota.workloads} workloads at once, ${usage.workloads} hold quota`
  }
  const short = (name: string, limit: number | undefined, used: number, wanted: number) =>
    limit !== undefined && used + wanted > limit ? `insufficient quota for ${name}: ${round(wanted)} requested, ${round(limit - used)} of ${round(limit)} free` : undefined
  return (
    short("nvidia.com/gpu", quota.gpus, usage.gpus, gpus) ??
    short("cpu", quota.cpu, usage.cpu ?? 0, demand?.cpu ?? 0) ??
    short("memory", quota.memory, usage.memory ?? 0, demand?.memory ?? 0)
  )
}
