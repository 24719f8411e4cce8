// Queue quotas: what the Workloads holding a reservation in a queue use, and whether one more fits.
import type { KubeObject } from "../Api.ts"
import { isConditionTrue, readConditions } from "./Conditions.ts"
import { asString, at } from "./KubeFields.ts"
import type { KueueQueueOptions } from "./Options.ts"
import { gpusOfPodSets } from "./PodSets.ts"

/** What a queue's reserving Workloads hold. */
export interface QueueUsage {
  readonly gpus: number
  readonly workloads: number
}

/** Whether a Workload holds quota: reserved and not finished. */
export const holdsQuota = (workload: KubeObject): boolean => {
  const conditions = readConditions(at(workload, "status", "conditions"))
  return isConditionTrue(conditions, "QuotaReserved") && !isConditionTrue(conditions, "Finished")
}

/** GPUs a Workload requests. */
export const gpuDemand = (workload: KubeObject): number => gpusOfPodSets(at(workload, "spec", "podSets"))

/** What the Workloads of `queue` among `workloads` hold. */
export const usageOf = (workloads: ReadonlyArray<KubeObject>, queue: string): QueueUsage =>
  workloads
    .filter((workload) => asString(at(workload, "spec", "queueName")) === queue && holdsQuota(workload))
    .reduce<QueueUsage>((usage, workload) => ({ gpus: usage.gpus + gpuDemand(workload), workloads: usage.workloads + 1 }), { gpus: 0, workloads: 0 })

/** Usage after one more Workload demanding `gpus`. */
export const addUsage = (usage: QueueUsage, gpus: number): QueueUsage => ({ gpus: usage.gpus + gpus, workloads: usage.workloads + 1 })

/** Why one more Workload demanding `gpus` does not fit the queue's quota (undefined when it fits). */
export const quotaShortfall = (quota: KueueQueueOptions, usage: QueueUsage, gpus: number): string | undefined => {
  if (quota.workloads !== undefined && usage.workloads + 1 > quota.workloads) {
    return `insufficient quota: the queue admits at most ${quota.workloads} workloads at once, ${usage.workloads} hold quota`
  }
  if (quota.gpus !== undefined && usage.gpus + gpus > quota.gpus) {
    return `insufficient quota for nvidia.com/gpu: ${gpus} requested, ${quota.gpus - usage.gpus} of ${quota.gpus} free`
  }
  return undefined
}
