// The JobSet controller: one Job per replicated job and replica (`<jobset>-<replicatedJob>-<index>`),
// labelled and annotated as JobSet labels them and controlled by the JobSet; suspending the JobSet
// suspends its Jobs, resuming gives them the JobSet's current template; the status counts the Jobs and
// says Completed when every Job completed, Failed when one failed.
import type { Controller, ControllerHost, KubeObject, SystemClient } from "../../Api.ts"
import { isConditionTrue, readConditions, setCondition, type Condition } from "../shared/Conditions.ts"
import { ChangeQueue, controllerKeyOf, keyOf, queuedController } from "../shared/ChangeQueue.ts"
import { asArray, asNumber, asRecord, asString, at, isDeleting, nameOf, sameJson, uidOf, type JsonRecord } from "../shared/KubeFields.ts"
import { createObject, updateObject, updateStatus } from "../shared/StoreWrites.ts"
import { readOnce } from "../shared/FrozenReads.ts"
import { formatTimestamp } from "../shared/Timestamps.ts"
import { jobApiVersion } from "../../kinds/batch/JobNames.ts"
import {
  globalReplicasKey,
  jobGlobalIndexKey,
  jobIndexKey,
  jobKeyFor,
  jobKeyKey,
  jobNameFor,
  jobSetApiVersion,
  jobSetNameKey,
  jobSetUidKey,
  replicatedJobNameKey,
  replicatedJobReplicasKey,
  restartAttemptKey
} from "../../kinds/jobset/JobSetNames.ts"

interface ReplicatedJobSpec {
  readonly name: string
  readonly replicas: number
  readonly template: JsonRecord
}

const readReplicatedJobs = (list: unknown): ReadonlyArray<ReplicatedJobSpec> =>
  asArray(list).flatMap((entry) => {
    const name = asString(at(entry, "name"))
    return name === undefined ? [] : [{ name, replicas: Math.max(1, asNumber(at(entry, "replicas")) ?? 1), template: asRecord(at(entry, "template")) ?? {} }]
  })

// Read once per stored list: a JobSet is looked at again after each write to it or to one of its Jobs,
// and a status write keeps its spec.
// Module state that is a pure memo cache of constant input (frozen lists, readOnce): every simulator may share it.
const readStoredReplicatedJobs = readOnce(readReplicatedJobs)

const replicatedJobsOf = (jobSet: KubeObject): ReadonlyArray<ReplicatedJobSpec> => readStoredReplicatedJobs(at(jobSet, "spec", "replicatedJobs"))

/** The Job JobSet makes for replica `index` of `replicated`. */
export const buildJob = (jobSet: KubeObject, replicated: ReplicatedJobSpec, index: number, globalIndex: number, globalReplicas: number): KubeObject => {
  const namespace = asString(at(jobSet, "metadata", "namespace")) ?? "default"
  const name = jobNameFor(nameOf(jobSet), replicated.name, index)
  const marks: Record<string, string> = {
    [jobSetNameKey]: nameOf(jobSet),
    [jobSetUidKey]: uidOf(jobSet),
    [replicatedJobNameKey]: replicated.name,
    [replicatedJobReplicasKey]: String(replicated.replicas),
    [globalReplicasKey]: String(globalReplicas),
    [jobIndexKey]: String(index),
    [jobGlobalIndexKey]: String(globalIndex),
    [restartAttemptKey]: "0",
    [jobKeyKey]: jobKeyFor(namespace, name)
  }
  const meta = asRecord(replicated.template["metadata"]) ?? {}
  const spec = asRecord(replicated.template["spec"]) ?? {}
  const pod = asRecord(spec["template"]) ?? {}
  const podMeta = asRecord(pod["metadata"]) ?? {}
  const subdomain = asString(at(jobSet, "spec", "network", "subdomain")) ?? nameOf(jobSet)
  const dns = at(jobSet, "spec", "network", "enableDNSHostnames") !== false
  return {
    apiVersion: jobApiVersion,
    kind: "Job",
    metadata: {
      name,
      namespace,
      labels: { ...(asRecord(meta["labels"]) ?? {}), ...marks },
      annotations: { ...(asRecord(meta["annotations"]) ?? {}), ...marks },
      ownerReferences: [{ apiVersion: jobSetApiVersion, kind: "JobSet", name: nameOf(jobSet), uid: uidOf(jobSet), controller: true, blockOwnerDeletion: true }]
    },
    spec: {
      ...spec,
      suspend: at(jobSet, "spec", "suspend") === true,
      template: {
        ...pod,
        metadata: { ...podMeta, labels: { ...(asRecord(podMeta["labels"]) ?? {}), ...marks }, annotations: { ...(asRecord(podMeta["annotations"]) ?? {}), ...marks } },
        spec: { ...(asRecord(pod["spec"]) ?? {}), ...(dns ? { subdomain } : {}) }
      }
    }
  }
}

const jobConditions = (job: KubeObject): ReadonlyArray<Condition> => readConditions(at(job, "status", "conditions"))

// One walk over the Jobs, each Job's conditions read once (a JobSet is counted on every look at it).
const countJobs = (name: string, jobs: ReadonlyArray<KubeObject>): JsonRecord => {
  let complete = 0
  let failed = 0
  let suspended = 0
  let ready = 0
  let active = 0
  for (const job of jobs) {
    const conditions = jobConditions(job)
    const isComplete = isConditionTrue(conditions, "Complete")
    const isFailed = isConditionTrue(conditions, "Failed")
    const isSuspended = at(job, "spec", "suspend") === true
    if (isComplete) complete++
    if (isFailed) failed++
    if (isSuspended) suspended++
    if (isComplete || isFailed || isSuspended) continue
    if ((asNumber(at(job, "status", "ready")) ?? 0) >= (asNumber(at(job, "spec", "parallelism")) ?? 1)) ready++
    if ((asNumber(at(job, "status", "active")) ?? 0) > 0) active++
  }
  return { name, ready, succeeded: complete, failed, active, suspended }
}

const reconcileJobSet = (system: SystemClient, jobSet: KubeObject): void => {
  const namespace = asString(at(jobSet, "metadata", "namespace")) ?? "default"
  const suspend = at(jobSet, "spec", "suspend") === true
  const replicated = replicatedJobsOf(jobSet)
  const globalReplicas = replicated.reduce((sum, r) => sum + r.replicas, 0)
  let globalIndex = 0
  const byReplicated: Array<{ name: string; jobs: Array<KubeObject> }> = []
  for (const r of replicated) {
    const jobs: Array<KubeObject> = []
    for (let index = 0; index < r.replicas; index++, globalIndex++) {
      // A Job is built only to be written: one that exists and is as suspended as the JobSet stays.
      const existing = system.get("jobs", namespace, jobNameFor(nameOf(jobSet), r.name, index))
      if (existing === undefined) {
        const created = createObject(system, "jobs", buildJob(jobSet, r, index, globalIndex, globalReplicas))
        if (created !== undefined) jobs.push(created)
        continue
      }
      const existingSuspend = at(existing, "spec", "suspend") === true
      if (existingSuspend === suspend) {
        jobs.push(existing)
        continue
      }
      // Resuming takes the JobSet's current template (Kueue may have changed it while suspended).
      const spec = suspend ? { ...(asRecord(existing["spec"]) ?? {}), suspend } : asRecord(buildJob(jobSet, r, index, globalIndex, globalReplicas)["spec"]) ?? {}
      jobs.push(updateObject(system, "jobs", { ...existing, spec }) ?? existing)
    }
    byReplicated.push({ name: r.name, jobs })
  }
  const all = byReplicated.flatMap((r) => r.jobs)
  const status = asRecord(jobSet["status"]) ?? {}
  const stamp = formatTimestamp(system.now())
  let conditions = readConditions(status["conditions"])
  const set = (type: string, state: Condition["status"], reason: string, message: string) => {
    conditions = setCondition(conditions, { type, status: state, reason, message }, stamp, 16)
  }
  let terminalState = asString(status["terminalState"])
  if (terminalState === undefined) {
    if (all.some((job) => isConditionTrue(jobConditions(job), "Failed"))) {
      set("Failed", "True", "FailedJobs", "jobset failed due to one or more job failures")
      terminalState = "Failed"
    } else if (all.length > 0 && all.every((job) => isConditionTrue(jobConditions(job), "Complete"))) {
      set("Completed", "True", "AllJobsCompleted", "jobset completed successfully")
      terminalState = "Completed"
    } else if (suspend) set("Suspended", "True", "SuspendJobs", "jobset is suspended")
    else if (conditions.some((c) => c.type === "Suspended")) set("Suspended", "False", "ResumeJobs", "jobset is resumed")
  }
  const next = {
    ...status,
    ...(conditions.length === 0 ? {} : { conditions }),
    restarts: asNumber(status["restarts"]) ?? 0,
    ...(terminalState === undefined ? {} : { terminalState }),
    replicatedJobsStatus: byReplicated.map((r) => countJobs(r.name, r.jobs))
  }
  if (!sameJson(next, status)) updateStatus(system, "jobsets", { ...jobSet, status: next })
}

/** The JobSet controller, fed by the simulator's change feed. */
export const jobSetController = (host: ControllerHost): Controller => {
  const queue = new ChangeQueue()
  host.onChange((change) => {
    if (change.resource === "jobsets") queue.add(keyOf(change.object))
    else if (change.resource === "jobs") queue.add(controllerKeyOf(change.object, "JobSet"))
  })
  return queuedController("jobset.x-k8s.io/jobset-controller", "jobsets", queue, reconcileJobSet)
}
