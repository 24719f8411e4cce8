// The Workload Kueue creates for a queue-labelled TrainJob, and the runtime patch Kueue writes into the
// TrainJob when that Workload is admitted (pod-set labels plus what the admission checks asked for).
import type { KubeObject } from "../../Api.ts"
import { annotationsOf, asArray, asRecord, asString, at, nameOf, namespaceOf, uidOf, type JsonRecord } from "../shared/KubeFields.ts"
import type { PodSet } from "./PodSets.ts"
import { workloadNameFor } from "./WorkloadNames.ts"
import {
  admissionGatedByAnnotation,
  jobUidLabel,
  kueueApiVersion,
  kueueManager,
  podSetLabel,
  trainerApiVersion
} from "../shared/WellKnown.ts"

/** The Workload for `job` in queue `queueName` with these pod sets. */
export const buildWorkload = (job: KubeObject, queueName: string, podSets: ReadonlyArray<PodSet>): KubeObject => {
  const gates = annotationsOf(job)[admissionGatedByAnnotation]
  return {
    apiVersion: kueueApiVersion,
    kind: "Workload",
    metadata: {
      name: workloadNameFor(nameOf(job), uidOf(job)),
      namespace: namespaceOf(job) ?? "default",
      labels: { [jobUidLabel]: uidOf(job) },
      ...(gates === undefined ? {} : { annotations: { [admissionGatedByAnnotation]: gates } }),
      ownerReferences: [{
        apiVersion: trainerApiVersion,
        kind: "TrainJob",
        name: nameOf(job),
        uid: uidOf(job),
        controller: true,
        blockOwnerDeletion: true
      }]
    },
    spec: {
      active: true,
      queueName,
      podSets: podSets.map((podSet) => ({ name: podSet.name, count: podSet.count, template: podSet.template }))
    }
  }
}

const nonEmpty = (key: string, value: unknown): JsonRecord => {
  const empty = value === undefined || (Array.isArray(value) ? value.length === 0 : Object.keys(asRecord(value) ?? {}).length === 0)
  return empty ? {} : { [key]: value }
}

/** Kueue's runtime patch for an admitted Workload. */
export const kueueRuntimePatch = (workload: KubeObject): JsonRecord => {
  const updates = asArray(at(workload, "status", "admissionChecks")).flatMap((check) => asArray(at(check, "podSetUpdates")))
  const replicatedJobs = asArray(at(workload, "spec", "podSets")).map((podSet) => {
    const name = asString(at(podSet, "name")) ?? "main"
    const mine = updates.filter((update) => at(update, "name") === name)
    const merged = (key: string) => Object.assign({}, ...mine.map((update) => asRecord(at(update, key)) ?? {})) as JsonRecord
    const tolerations = mine.flatMap((update) => asArray(at(update, "tolerations")))
    return {
      name,
      template: {
        spec: {
          template: {
            metadata: { labels: { ...merged("labels"), [podSetLabel]: name }, ...nonEmpty("annotations", merged("annotations")) },
            spec: { ...nonEmpty("nodeSelector", merged("nodeSelector")), ...nonEmpty("tolerations", tolerations) }
          }
        }
      }
    }
  })
  return { manager: kueueManager, trainingRuntimeSpec: { template: { spec: { replicatedJobs } } } }
}
