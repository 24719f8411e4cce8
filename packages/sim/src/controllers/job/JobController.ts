// The Job controller (batch/v1) for the Indexed Jobs JobSet makes: one pod per completion index, named
// `<job>-<index>-<5 random>` through generateName and labelled as the Job controller labels them; a
// suspended Job deletes its running pods; the status counts the pods and the Job completes when every
// index succeeded, or fails when more pods failed than spec.backoffLimit allows (a failed index gets a
// new pod until then; the simulator counts an absent backoffLimit as 0, so a scripted failure ends the
// run at once instead of after six retries), or when it was active past spec.activeDeadlineSeconds
// (its running pods are deleted).
import type { Controller, ControllerHost, KubeObject, SystemClient } from "../../Api.ts"
import { ChangeQueue, ChildIndex, controllerKeyOf, keyOf, queuedController } from "../shared/ChangeQueue.ts"
import { findCondition, isConditionTrue, readConditions, setCondition, type Condition } from "../shared/Conditions.ts"
import type { EventRecorder, EventReporter } from "../shared/Events.ts"
import { asArray, asNumber, asRecord, asString, at, isDeleting, nameOf, sameJson, uidOf, type JsonRecord } from "../shared/KubeFields.ts"
import { createObject, updateStatus } from "../shared/StoreWrites.ts"
import { formatTimestamp, parseTimestamp } from "../shared/Timestamps.ts"
import {
  completionIndexEnv,
  completionIndexKey,
  controllerUidLabel,
  jobApiVersion,
  jobNameLabel,
  legacyControllerUidLabel,
  legacyJobNameLabel,
  podGenerateNameFor
} from "../../kinds/batch/JobNames.ts"

// kube-controller-manager's Job controller records through client-go's core/v1 recorder with a source
// that names no host, so its reporting instance is empty on a real cluster too.
const component: EventReporter = { api: "core/v1", component: "job-controller" }

/** The pod the Job controller makes for completion `index` of `job`. */
export const buildPod = (job: KubeObject, index: number): KubeObject => {
  const template = asRecord(at(job, "spec", "template")) ?? {}
  const meta = asRecord(template["metadata"]) ?? {}
  const spec = asRecord(template["spec"]) ?? {}
  const withIndex = (containers: unknown) =>
    asArray(containers).map((entry) => {
      const container = asRecord(entry) ?? {}
      const env = [...asArray(container["env"]), { name: completionIndexEnv, valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${completionIndexKey}']` } } }]
      return { ...container, env }
    })
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName: podGenerateNameFor(nameOf(job), index),
      namespace: asString(at(job, "metadata", "namespace")) ?? "default",
      labels: {
        ...(asRecord(meta["labels"]) ?? {}),
        [controllerUidLabel]: uidOf(job),
        [jobNameLabel]: nameOf(job),
        [legacyControllerUidLabel]: uidOf(job),
        [legacyJobNameLabel]: nameOf(job),
        [completionIndexKey]: String(index)
      },
      annotations: { ...(asRecord(meta["annotations"]) ?? {}), [completionIndexKey]: String(index) },
      ownerReferences: [{ apiVersion: jobApiVersion, kind: "Job", name: nameOf(job), uid: uidOf(job), controller: true, blockOwnerDeletion: true }]
    },
    spec: {
      restartPolicy: "Never",
      ...spec,
      hostname: `${nameOf(job)}-${index}`,
      containers: withIndex(spec["containers"]),
      ...(spec["initContainers"] === undefined ? {} : { initContainers: withIndex(spec["initContainers"]) })
    }
  }
}

const phaseOf = (pod: KubeObject): string => asString(at(pod, "status", "phase")) ?? "Pending"
const isTerminal = (pod: KubeObject): boolean => phaseOf(pod) === "Succeeded" || phaseOf(pod) === "Failed"
const isReady = (pod: KubeObject): boolean => isConditionTrue(readConditions(at(pod, "status", "conditions")), "Ready")
const indexOf = (pod: KubeObject): number => Number(asString(at(pod, "metadata", "annotations", completionIndexKey)) ?? "-1")

/** `0-3,5`, the form of status.completedIndexes. */
export const indexRanges = (indexes: ReadonlyArray<number>): string => {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b)
  const ranges: Array<string> = []
  for (let i = 0; i < sorted.length; ) {
    let j = i
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] ?? 0) + 1) j++
    ranges.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`)
    i = j + 1
  }
  return ranges.join(",")
}

const deadlineMessage = "Job was active longer than specified deadline"

const reconcileJob = (system: SystemClient, events: EventRecorder, queue: ChangeQueue, job: KubeObject, podNames: ReadonlyArray<string>): void => {
  const namespace = asString(at(job, "metadata", "namespace")) ?? "default"
  let pods = podNames.flatMap((name) => {
    const pod = system.get("pods", namespace, name)
    return pod === undefined || isDeleting(pod) ? [] : [pod]
  })
  const status = asRecord(job["status"]) ?? {}
  const stamp = formatTimestamp(system.now())
  let conditions = readConditions(status["conditions"])
  const set = (type: string, state: Condition["status"], reason: string, message: string) => {
    conditions = setCondition(conditions, { type, status: state, reason, message }, stamp, 16)
  }
  const finished = isConditionTrue(conditions, "Complete") || isConditionTrue(conditions, "Failed")
  const completions = Math.max(1, asNumber(at(job, "spec", "completions")) ?? asNumber(at(job, "spec", "parallelism")) ?? 1)
  const suspended = at(job, "spec", "suspend") === true
  let resumed = false
  if (!finished && suspended) {
    for (const pod of pods.filter((p) => !isTerminal(p))) {
      if (system.delete("pods", namespace, nameOf(pod)).code < 300) events.record(system, job, "Normal", "SuccessfulDelete", `Deleted pod: ${nameOf(pod)}`, component)
    }
    pods = pods.filter(isTerminal)
    if (!isConditionTrue(conditions, "Suspended")) {
      set("Suspended", "True", "JobSuspended", "Job suspended")
      events.record(system, job, "Normal", "Suspended", "Job suspended", component)
    }
  } else if (!finished) {
    if (findCondition(conditions, "Suspended")?.status === "True") {
      resumed = true
      set("Suspended", "False", "JobResumed", "Job resumed")
      events.record(system, job, "Normal", "Resumed", "Job resumed", component)
    }
    const deadlineSeconds = asNumber(at(job, "spec", "activeDeadlineSeconds"))
    const startedAt = resumed ? system.now() : parseTimestamp(asString(status["startTime"]))
    const deadlineAt = deadlineSeconds === undefined || startedAt === undefined ? Number.POSITIVE_INFINITY : startedAt + deadlineSeconds * 1000
    if (system.now() >= deadlineAt) {
      for (const pod of pods.filter((p) => !isTerminal(p))) {
        if (system.delete("pods", namespace, nameOf(pod)).code < 300) events.record(system, job, "Normal", "SuccessfulDelete", `Deleted pod: ${nameOf(pod)}`, component)
      }
      pods = pods.filter(isTerminal)
      set("FailureTarget", "True", "DeadlineExceeded", deadlineMessage)
      set("Failed", "True", "DeadlineExceeded", deadlineMessage)
      events.record(system, job, "Warning", "DeadlineExceeded", deadlineMessage, component)
    } else queue.addAt(keyOf(job), deadlineAt)
  }
  const failedSoFar = pods.filter((p) => phaseOf(p) === "Failed").length
  const backoffLimit = asNumber(at(job, "spec", "backoffLimit")) ?? 0
  if (!suspended && !isConditionTrue(conditions, "Complete") && !isConditionTrue(conditions, "Failed") && failedSoFar <= backoffLimit) {
    // A failed index gets a new pod while the backoff limit allows.
    const taken = new Set(pods.filter((p) => phaseOf(p) !== "Failed").map(indexOf))
    for (let index = 0; index < completions; index++) {
      if (taken.has(index)) continue
      const created = createObject(system, "pods", buildPod(job, index))
      if (created === undefined) continue
      pods.push(created)
      events.record(system, job, "Normal", "SuccessfulCreate", `Created pod: ${nameOf(created)}`, component)
    }
  }
  const succeeded = pods.filter((p) => phaseOf(p) === "Succeeded")
  const failed = pods.filter((p) => phaseOf(p) === "Failed")
  const active = pods.filter((p) => !isTerminal(p))
  if (!finished && !isConditionTrue(conditions, "Failed") && failed.length > backoffLimit) {
    set("FailureTarget", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit")
    set("Failed", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit")
    events.record(system, job, "Warning", "BackoffLimitExceeded", "Job has reached the specified backoff limit", component)
  } else if (!finished && new Set(succeeded.map(indexOf)).size >= completions) {
    set("SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of succeeded pods")
    set("Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods")
    events.record(system, job, "Normal", "Completed", "Job completed", component)
  }
  const done = isConditionTrue(conditions, "Complete") || isConditionTrue(conditions, "Failed")
  const next: JsonRecord = {
    ...status,
    ...(conditions.length === 0 ? {} : { conditions }),
    // Resuming starts the Job's clock again: its deadline counts from then.
    ...((status["startTime"] === undefined || resumed) && !suspended ? { startTime: stamp } : {}),
    ...(done && status["completionTime"] === undefined && isConditionTrue(conditions, "Complete") ? { completionTime: stamp } : {}),
    active: active.length,
    ready: active.filter(isReady).length,
    succeeded: succeeded.length,
    failed: failed.length,
    terminating: 0,
    ...(succeeded.length > 0 ? { completedIndexes: indexRanges(succeeded.map(indexOf)) } : {}),
    uncountedTerminatedPods: {}
  }
  if (!sameJson(next, status)) updateStatus(system, "jobs", { ...job, status: next })
}

/** The Job controller, fed by the simulator's change feed. */
export const jobController = (host: ControllerHost, events: EventRecorder): Controller => {
  const queue = new ChangeQueue()
  const pods = new ChildIndex()
  host.onChange((change) => {
    if (change.resource === "jobs") queue.add(keyOf(change.object))
    else if (change.resource === "pods") {
      const owner = controllerKeyOf(change.object, "Job")
      pods.track(owner, nameOf(change.object), change.type !== "DELETED")
      queue.add(owner)
    }
  })
  return queuedController("batch/job-controller", "jobs", queue, (system, job, key) => reconcileJob(system, events, queue, job, pods.of(key)))
}
