// Find: one job by its deterministic name, or many with one labelled list.
import { Clock, Effect, Option } from "effect"
import { labelKeys, admissionGateName, type BackendConfig } from "@dispatch/render"
import type { Backend } from "../Backend.ts"
import { Cluster } from "../Cluster.ts"
import { InFlight, inFlightKey } from "../InFlight.ts"
import type { KubeResource } from "../KubeObjects.ts"
import { TrainJobs, Workloads } from "../ResourceKind.ts"
import { retryCall } from "../RetryPolicy.ts"
import { readFailure } from "../StartFailure.ts"
import { ErrInvalid, type ObjectRef, objectRef } from "../StartErrors.ts"
import { jobUidLabel } from "../WorkloadReadiness.ts"
import { requireAccess } from "./Access.ts"
import { jobKeyProblems, jobObjects, type JobKey, type JobObjects } from "./JobKey.ts"
import { belongsTo, readTrainJob, readWorkload, workloadFor } from "./JobReads.ts"
import { jobState, type JobState } from "./JobState.ts"
import type { LifecycleError } from "./LifecycleErrors.ts"

/** Find's answer about one job: its state and the reference of its TrainJob (with the UID when it exists). */
export type FoundJob = JobState & { readonly ref: ObjectRef }

/** Above this many distinct jobs, Find lists every dispatch TrainJob of the namespace instead of naming
 * each job in the selector, keeping the request line short. */
export const MAX_SELECTOR_JOBS = 50

const statusOf = (
  config: BackendConfig,
  objects: JobObjects,
  trainJob: KubeResource | undefined,
  workload: KubeResource | undefined
): Effect.Effect<FoundJob, never, InFlight> =>
  Effect.gen(function* () {
    const inFlight = yield* InFlight
    const key = inFlightKey(objects)
    // Once the TrainJob is seen, the unanswered create's outcome is known: forgotten, so not looked up below.
    if (trainJob !== undefined) yield* inFlight.forget(key)
    const since = Option.getOrUndefined(yield* inFlight.lookup(key))
    const state = jobState({
      mode: config.mode,
      trainJob,
      workload,
      inFlightAtMs: since,
      nowMs: yield* Clock.currentTimeMillis,
      callBoundMs: config.timeouts.callBoundMs,
      admissionGate: admissionGateName(config),
      check: config.kueue?.admissionCheck
    })
    return { ...state, ref: objectRef(objects, trainJob?.metadata.uid) }
  })

/** Find: reads the job's TrainJob by name (and in Kueue mode its Workload) and reports one state. */
export const find = (backend: Backend, key: JobKey): Effect.Effect<FoundJob, LifecycleError, Cluster | InFlight> =>
  Effect.gen(function* () {
    yield* requireAccess(backend, "read")
    const config = backend.config
    const objects = yield* jobObjects(config, key)
    const read = yield* readTrainJob(objects)
    // An object of that name without the job's labels is not this job's: the job is Absent.
    const trainJob = read !== undefined && belongsTo(config, objects, read) ? read : undefined
    const workload = trainJob === undefined ? undefined : yield* readWorkload(config, trainJob)
    return yield* statusOf(config, objects, trainJob, workload)
  }).pipe(Effect.withSpan("dispatch.find", { attributes: { "dispatch.job": key.job, "dispatch.submission": key.submission } }))

/** The label selector of Find for many jobs: the jobs by name, or every dispatch job when they are many. */
export const selectorFor = (config: BackendConfig, keys: ReadonlyArray<JobKey>): string => {
  const label = labelKeys(config).jobId
  const jobs = [...new Set(keys.map((k) => k.job))].sort()
  return jobs.length > MAX_SELECTOR_JOBS ? label : `${label} in (${jobs.join(",")})`
}

/** The label selector of the Workloads of the TrainJobs of these UIDs: by UID, or every Workload Kueue
 * made for a job when they are many. */
export const workloadSelectorFor = (uids: ReadonlyArray<string>): string =>
  uids.length > MAX_SELECTOR_JOBS ? jobUidLabel : `${jobUidLabel} in (${uids.join(",")})`

/** Find for many jobs at once: one labelled list of TrainJobs (and in Kueue mode one list of Workloads),
 * never one GET per job. Answers in the order of `keys`; a malformed key is ErrInvalid naming every one. */
export const findMany = (backend: Backend, keys: ReadonlyArray<JobKey>): Effect.Effect<ReadonlyArray<FoundJob>, LifecycleError, Cluster | InFlight> =>
  Effect.gen(function* () {
    yield* requireAccess(backend, "read")
    const config = backend.config
    const problems = keys.flatMap((key, i) => jobKeyProblems(key).map((p) => `keys[${i}] ${p}`))
    if (problems.length > 0) return yield* new ErrInvalid({ reasons: problems })
    if (keys.length === 0) return []
    const cluster = yield* Cluster
    const listed = yield* Effect.mapError(retryCall(cluster.list(TrainJobs, config.namespace, selectorFor(config, keys))), readFailure)
    const byName = new Map(listed.map((job) => [job.metadata.name, job]))
    const uids = [...new Set(listed.map((job) => job.metadata.uid).filter((uid): uid is string => uid !== undefined))].sort()
    const workloads = config.mode === "kueue" && uids.length > 0
      ? yield* Effect.mapError(retryCall(cluster.list(Workloads, config.namespace, workloadSelectorFor(uids))), readFailure)
      : []
    return yield* Effect.forEach(keys, (key) =>
      Effect.gen(function* () {
        const objects = yield* jobObjects(config, key)
        const found = byName.get(objects.name)
        const trainJob = found !== undefined && belongsTo(config, objects, found) ? found : undefined
        return yield* statusOf(config, objects, trainJob, workloadFor(workloads, trainJob?.metadata.uid))
      })
    )
  }).pipe(Effect.withSpan("dispatch.findMany", { attributes: { "dispatch.jobs": keys.length } }))
