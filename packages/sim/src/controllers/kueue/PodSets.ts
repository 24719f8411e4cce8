// A TrainJob's pod sets as Kueue sees them: one per replicated job, counting every pod of its Jobs, with
// the pod template the trainer step really runs (spec.trainer's image and resources on the node
// container), and the GPUs they request.
import type { KubeObject } from "../../Api.ts"
import { asArray, asNumber, asRecord, asString, at, copyJson, type JsonRecord } from "../shared/KubeFields.ts"
import type { ReplicatedJob } from "../trainer/ReplicatedJobs.ts"
import { gpuResource, trainerContainerName } from "../shared/WellKnown.ts"

/** A Workload pod set. */
export interface PodSet {
  readonly name: string
  readonly count: number
  readonly template: JsonRecord
}

/** The template with spec.trainer's image and resources on its trainer container. */
export const withTrainerOverrides = (template: JsonRecord, job: KubeObject): JsonRecord => {
  const trainer = asRecord(at(job, "spec", "trainer")) ?? {}
  const spec = asRecord(template["spec"]) ?? {}
  const containers = asArray(spec["containers"]).map((entry) => {
    const container = asRecord(entry) ?? {}
    if (container["name"] !== trainerContainerName) return container
    const resources = asRecord(trainer["resourcesPerNode"])
    return {
      ...container,
      ...(trainer["image"] === undefined ? {} : { image: trainer["image"] }),
      ...(resources === undefined ? {} : { resources: { ...(asRecord(container["resources"]) ?? {}), ...resources } })
    }
  })
  return { ...template, spec: { ...spec, containers } }
}

/** The pod sets of `job` when run from replicated jobs `jobs`. */
export const podSetsFor = (job: KubeObject, jobs: ReadonlyArray<ReplicatedJob>): ReadonlyArray<PodSet> =>
  jobs.map((replicated) => ({
    name: replicated.name,
    count: replicated.replicas * replicated.parallelism,
    template: replicated.isTrainerStep ? withTrainerOverrides(copyJson(replicated.podTemplate), job) : copyJson(replicated.podTemplate)
  }))

const quantity = (value: unknown): number => {
  const n = asNumber(value) ?? Number(asString(value) ?? "0")
  return Number.isFinite(n) && n > 0 ? n : 0
}

/** GPUs one pod of this template requests (requests, else limits, summed over containers). */
export const gpusPerPod = (template: unknown): number =>
  asArray(at(template, "spec", "containers")).reduce<number>((total, container) => {
    const requested = at(container, "resources", "requests", gpuResource) ?? at(container, "resources", "limits", gpuResource)
    return total + quantity(requested)
  }, 0)

/** GPUs a Workload's pod sets request in all. */
export const gpusOfPodSets = (podSets: unknown): number =>
  asArray(podSets).reduce<number>((total, podSet) => total + (asNumber(at(podSet, "count")) ?? 1) * gpusPerPod(at(podSet, "template")), 0)
