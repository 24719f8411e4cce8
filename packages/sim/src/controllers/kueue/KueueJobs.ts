// Kueue's job reconciler for TrainJobs: makes the Workload of each queue-labelled job (after the
// configured delay), starts the job when its Workload is admitted (runtime patch first, then
// suspend=false), stops it when the Workload is evicted or not admitted, releases quota once stopped,
// and marks the Workload Finished when the job ends.
import type { KubeObject, SystemClient } from "../../Api.ts"
import { findCondition, isConditionTrue, readConditions, setCondition } from "../shared/Conditions.ts"
import { asArray, asRecord, asString, at, isDeleting, labelsOf, sameJson, uidOf } from "../shared/KubeFields.ts"
import type { KueueOptions } from "../Options.ts"
import { podSetsFor } from "./PodSets.ts"
import { replicatedJobsOf } from "../trainer/ReplicatedJobs.ts"
import { managerOf, runtimePatchesOf } from "../trainer/RuntimePatches.ts"
import { lookUpRuntime } from "../trainer/Runtimes.ts"
import { createObject, updateObject, updateStatus } from "../shared/StoreWrites.ts"
import { formatTimestamp, parseTimestamp } from "../shared/Timestamps.ts"
import { isFinished } from "../../kinds/trainer/trainjob/TrainJobState.ts"
import { maxWorkloadConditions, releasedStatus, syncChecks } from "./WorkloadDecisions.ts"
import { kueueRuntimePatch, buildWorkload } from "./Workloads.ts"
import { jobUidLabel, kueueManager, queueNameLabel } from "../shared/WellKnown.ts"

/** The Workloads Kueue made, by the uid of the job that controls each. */
export const workloadsByJobUid = (system: SystemClient): ReadonlyMap<string, KubeObject> => {
  const byUid = new Map<string, KubeObject>()
  for (const workload of system.list("workloads")) {
    const uid = labelsOf(workload)[jobUidLabel]
    const controlled = asArray(at(workload, "metadata", "ownerReferences")).some((owner) => at(owner, "uid") === uid && at(owner, "controller") === true)
    if (uid !== undefined && controlled && !byUid.has(uid)) byUid.set(uid, workload)
  }
  return byUid
}

const isSuspended = (job: KubeObject): boolean => at(job, "spec", "suspend") === true

const withSpec = (job: KubeObject, change: Record<string, unknown>): KubeObject => ({
  ...job,
  spec: { ...(asRecord(job["spec"]) ?? {}), ...change }
})

const otherPatches = (job: KubeObject) => runtimePatchesOf(job).filter((patch) => managerOf(patch) !== kueueManager)

/** Suspends the job, then takes Kueue's runtime patch back out (patches change only while suspended). */
const stopJob = (system: SystemClient, job: KubeObject): void => {
  const stopped = isSuspended(job) ? job : updateObject(system, "trainjobs", withSpec(job, { suspend: true }))
  if (stopped === undefined) return
  if (runtimePatchesOf(stopped).some((patch) => managerOf(patch) === kueueManager)) {
    updateObject(system, "trainjobs", withSpec(stopped, { runtimePatches: otherPatches(stopped) }))
  }
}

/** Writes Kueue's runtime patch while the job is still suspended, then opens it. */
const startJob = (system: SystemClient, job: KubeObject, workload: KubeObject): void => {
  const patch = kueueRuntimePatch(workload)
  const existing = runtimePatchesOf(job).find((candidate) => managerOf(candidate) === kueueManager)
  const { time: _time, ...existingContent } = existing ?? {}
  const patched = existing !== undefined && sameJson(existingContent, patch)
    ? job
    : updateObject(system, "trainjobs", withSpec(job, { runtimePatches: [...otherPatches(job), patch] }))
  if (patched !== undefined) updateObject(system, "trainjobs", withSpec(patched, { suspend: false }))
}

const createWorkload = (system: SystemClient, job: KubeObject, queue: string, options: KueueOptions): void => {
  const lookup = lookUpRuntime(system, job)
  if ("problem" in lookup) return
  const created = createObject(system, "workloads", buildWorkload(job, queue, podSetsFor(job, replicatedJobsOf(lookup.runtime, job))))
  const checks = options.queues?.[queue]?.admissionChecks ?? []
  if (created === undefined || checks.length === 0) return
  const admissionChecks = syncChecks([], checks, formatTimestamp(system.now()))
  updateStatus(system, "workloads", { ...created, status: { ...(asRecord(created["status"]) ?? {}), admissionChecks } })
}

const finishWorkload = (system: SystemClient, job: KubeObject, workload: KubeObject): void => {
  const jobConditions = readConditions(at(job, "status", "conditions"))
  const complete = isConditionTrue(jobConditions, "Complete")
  const message = findCondition(jobConditions, complete ? "Complete" : "Failed")?.message ?? ""
  const conditions = setCondition(
    readConditions(at(workload, "status", "conditions")),
    { type: "Finished", status: "True", reason: complete ? "Succeeded" : "Failed", message },
    formatTimestamp(system.now()),
    maxWorkloadConditions
  )
  updateStatus(system, "workloads", { ...workload, status: { ...(asRecord(workload["status"]) ?? {}), conditions } })
}

/**
 * One pass of Kueue's job reconciler over every queue-labelled TrainJob; returns the earliest clock time
 * at which a job still waiting out the Workload delay is due (Infinity: none waits).
 */
export const reconcileQueuedJobs = (system: SystemClient, options: KueueOptions): number => {
  const now = system.now()
  const workloads = workloadsByJobUid(system)
  let dueAt = Number.POSITIVE_INFINITY
  for (const job of system.list("trainjobs")) {
    const queue = labelsOf(job)[queueNameLabel]
    if (queue === undefined || isDeleting(job)) continue
    const workload = workloads.get(uidOf(job))
    if (workload === undefined) {
      if (isFinished(job)) continue
      if (!isSuspended(job)) stopJob(system, job)
      const created = parseTimestamp(asString(at(job, "metadata", "creationTimestamp"))) ?? now
      const delay = options.workloadDelayMs ?? 0
      if (now - created >= delay) createWorkload(system, job, queue, options)
      else dueAt = Math.min(dueAt, created + delay)
      continue
    }
    if (isDeleting(workload)) continue
    const conditions = readConditions(at(workload, "status", "conditions"))
    if (isFinished(job)) {
      if (!isConditionTrue(conditions, "Finished")) finishWorkload(system, job, workload)
      continue
    }
    if (isConditionTrue(conditions, "Evicted")) {
      stopJob(system, job)
      if (isConditionTrue(conditions, "QuotaReserved")) {
        const released = releasedStatus(workload, now)
        if (!sameJson(released, workload["status"])) updateStatus(system, "workloads", { ...workload, status: released })
      }
      continue
    }
    const admitted = isConditionTrue(conditions, "Admitted")
    if (isSuspended(job) && admitted) startJob(system, job, workload)
    else if (!isSuspended(job) && !admitted) stopJob(system, job)
  }
  return dueAt
}
