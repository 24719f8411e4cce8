// The reads every lifecycle operation starts from: the TrainJob by its deterministic name, the runtime
// copy of the same name, and in Kueue mode the TrainJob's Workload.
import { Effect } from "effect"
import { labelKeys, type BackendConfig } from "@dispatch/render"
import { Cluster } from "../Cluster.ts"
import { getIfExists } from "../ExistingObjects.ts"
import type { KubeResource } from "../KubeObjects.ts"
import { TrainJobs, TrainingRuntimes, Workloads, type ResourceKind } from "../ResourceKind.ts"
import { retryCall, retryRead } from "../RetryPolicy.ts"
import { readFailure } from "../StartFailure.ts"
import { ErrRejected, objectRef } from "../StartErrors.ts"
import { jobUidLabel } from "../WorkloadReadiness.ts"
import type { JobObjects } from "./JobKey.ts"
import {} from "./JobKey.ts"
import type { LifecycleError } from "./LifecycleErrors.ts"

/** Reads one of the job's objects by name; NotFound is undefined, a passing fault is tried again
 * (RetryPolicy), other failures are Start's read errors. */
export const readObject = (kind: ResourceKind, objects: JobObjects): Effect.Effect<KubeResource | undefined, LifecycleError, Cluster> =>
  retryRead(getIfExists(kind, { namespace: objects.namespace, name: objects.name }))

/** The job's TrainJob, or undefined when it does not exist. */
export const readTrainJob = (objects: JobObjects): Effect.Effect<KubeResource | undefined, LifecycleError, Cluster> => readObject(TrainJobs, objects)

/** The job's runtime copy, or undefined when it does not exist. */
export const readCopy = (objects: JobObjects): Effect.Effect<KubeResource | undefined, LifecycleError, Cluster> => readObject(TrainingRuntimes, objects)

/** Whether an object carries the job's identity labels: names are deterministic, but dispatch never acts
 * on an object it did not make. */
export const belongsTo = (config: BackendConfig, objects: JobObjects, object: KubeResource): boolean => {
  const keys = labelKeys(config)
  const labels = object.metadata.labels ?? {}
  return labels[keys.jobId] === objects.key.job && labels[keys.submission] === String(objects.key.submission)
}

/** Refuses an object of the job's name that lacks the job's labels. */
export const requireOwn = (config: BackendConfig, objects: JobObjects, object: KubeResource): Effect.Effect<KubeResource, LifecycleError> =>
  belongsTo(config, objects, object)
    ? Effect.succeed(object)
    : Effect.fail(
        new ErrRejected({
          reasons: [`${object.kind} ${objects.namespace}/${objects.name} does not carry the labels of job ${objects.key.job} submission ${objects.key.submission}: dispatch did not make it`],
          ref: objectRef(objects, object.metadata.uid)
        })
      )

/** Kueue's Workload for a TrainJob among listed Workloads: labelled with its UID and not being deleted. */
export const workloadFor = (workloads: ReadonlyArray<KubeResource>, uid: string | undefined): KubeResource | undefined =>
  uid === undefined
    ? undefined
    : workloads.find((w) => w.metadata.labels?.[jobUidLabel] === uid && w.metadata.deletionTimestamp === undefined)

/** Every Workload Kueue made for the TrainJob of that UID (one list call, tried again on a passing fault). */
export const listWorkloads = (namespace: string, uid: string): Effect.Effect<ReadonlyArray<KubeResource>, LifecycleError, Cluster> =>
  Effect.flatMap(Cluster, (cluster) => Effect.mapError(retryCall(cluster.list(Workloads, namespace, `${jobUidLabel}=${uid}`)), readFailure))

/** Whether a Workload's owner is the job's TrainJob, by kind and name: what is left to know it by once
 * the TrainJob, and with it its UID, is gone. */
export const ownedByTrainJob = (objects: JobObjects, workload: KubeResource): boolean =>
  (workload.metadata.ownerReferences ?? []).some((o) => o.kind === TrainJobs.kind && o.name === objects.name)

/** Every Workload Kueue made for the job's TrainJob: by the TrainJob's UID while it is known, else (the
 * TrainJob gone) every Workload with a job-uid label whose owner is the TrainJob of the job's name. */
export const jobWorkloads = (config: BackendConfig, objects: JobObjects, uid: string | undefined): Effect.Effect<ReadonlyArray<KubeResource>, LifecycleError, Cluster> => {
  // Plain mode has no Workloads to find (and its RBAC grants none): it never asks.
  if (config.mode !== "kueue") return Effect.succeed([])
  if (uid !== undefined) return listWorkloads(objects.namespace, uid)
  return Effect.flatMap(Cluster, (cluster) =>
    retryCall(cluster.list(Workloads, objects.namespace, jobUidLabel)).pipe(
      Effect.mapError(readFailure),
      Effect.map((all) => all.filter((w) => ownedByTrainJob(objects, w)))
    )
  )
}

/** In Kueue mode, the TrainJob's Workload (undefined when Kueue has not made it); in plain mode, none. */
export const readWorkload = (config: BackendConfig, trainJob: KubeResource): Effect.Effect<KubeResource | undefined, LifecycleError, Cluster> => {
  const uid = trainJob.metadata.uid
  if (config.mode !== "kueue" || uid === undefined) return Effect.succeed(undefined)
  return Effect.map(listWorkloads(config.namespace, uid), (all) => workloadFor(all, uid))
}
