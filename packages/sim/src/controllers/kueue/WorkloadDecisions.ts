// What Kueue decides about one Workload at a moment of the clock, as pure functions of the Workload, its
// queue and the queue's usage: sync its admission checks, deactivate it (a Rejected check, or
// spec.active=false), evict it (a Retry check while it holds quota), reserve quota (only with no gate
// left and room in the queue), admit it (quota reserved and every check Ready), and what releasing its
// quota leaves once its job has stopped.
import type { KubeObject } from "../../Api.ts"
import { parseAdmissionGates } from "@dispatch/kube"
import { findCondition, isConditionTrue, readConditions, removeCondition, setCondition, type Condition } from "../shared/Conditions.ts"
import { annotationsOf, asArray, asNumber, asRecord, asString, at, copyJson, type JsonRecord } from "../shared/KubeFields.ts"
import type { KueueQueueOptions } from "../Options.ts"
import { gpusPerPod } from "./PodSets.ts"
import { demandOf, quotaShortfall, type QueueUsage } from "./Quota.ts"
import { formatTimestamp } from "../shared/Timestamps.ts"
import { admissionGatedByAnnotation, gpuResource } from "../shared/WellKnown.ts"

/** Workload conditions are capped at 16 by the CRD. */
export const maxWorkloadConditions = 16

/** What to do with a Workload: its next status, and whether to deactivate it (spec.active=false). */
export interface WorkloadDecision {
  readonly status: JsonRecord
  readonly deactivate: boolean
  /** Whether this decision reserves quota (the caller adds the Workload to its queue's usage). */
  readonly reserves: boolean
}

/** A Workload's admission check states. */
export const checksOf = (workload: KubeObject): ReadonlyArray<JsonRecord> =>
  asArray(at(workload, "status", "admissionChecks")).flatMap((entry) => {
    const record = asRecord(entry)
    return record === undefined ? [] : [record]
  })

const pendingCheck = (name: string, stamp: string): JsonRecord => ({ name, state: "Pending", lastTransitionTime: stamp, message: "" })

/** The queue's checks, keeping the states already recorded and adding missing ones as Pending. */
export const syncChecks = (checks: ReadonlyArray<JsonRecord>, names: ReadonlyArray<string>, stamp: string): ReadonlyArray<JsonRecord> =>
  names.map((name) => checks.find((check) => check["name"] === name) ?? pendingCheck(name, stamp))

/** Every check back to Pending after an eviction, saying what it was; Retry counts one more retry. */
const resetChecks = (checks: ReadonlyArray<JsonRecord>, stamp: string): ReadonlyArray<JsonRecord> =>
  checks.map((check) => {
    const state = asString(check["state"]) ?? "Pending"
    if (state === "Pending") return check
    const retries = asNumber(check["retryCount"]) ?? 0
    return {
      ...pendingCheck(asString(check["name"]) ?? "", stamp),
      message: `Reset to Pending after eviction. Previously: ${state}`,
      ...(state === "Retry" ? { retryCount: retries + 1 } : check["retryCount"] === undefined ? {} : { retryCount: retries })
    }
  })

/** Kueue's wording for the checks in a state: `AdmissionCheck in Retry state: "a" (why)`. */
const checksInState = (checks: ReadonlyArray<JsonRecord>, state: string): string | undefined => {
  const matching = checks.filter((check) => check["state"] === state)
  if (matching.length === 0) return undefined
  const listed = matching.map((check) => {
    const message = asString(check["message"]) ?? ""
    return `"${asString(check["name"]) ?? ""}"${message === "" ? "" : ` (${message})`}`
  })
  return `AdmissionCheck${matching.length > 1 ? "s" : ""} in ${state} state: ${listed.join("; ")}`
}

const admissionFor = (workload: KubeObject, clusterQueue: string): JsonRecord => ({
  clusterQueue,
  podSetAssignments: asArray(at(workload, "spec", "podSets")).map((podSet) => {
    const count = asNumber(at(podSet, "count")) ?? 1
    const gpus = count * gpusPerPod(at(podSet, "template"))
    return {
      name: asString(at(podSet, "name")) ?? "main",
      flavors: gpus > 0 ? { [gpuResource]: "default-flavor" } : {},
      resourceUsage: gpus > 0 ? { [gpuResource]: String(gpus) } : {},
      count
    }
  })
})

/** status.schedulingStats with one more eviction of that reason and cause. */
const countEviction = (status: JsonRecord, reason: string, underlyingCause: string): JsonRecord => {
  const evictions = asArray(at(status, "schedulingStats", "evictions")).flatMap((entry) => {
    const record = asRecord(entry)
    return record === undefined ? [] : [record]
  })
  const same = (entry: JsonRecord) => entry["reason"] === reason && (entry["underlyingCause"] ?? "") === underlyingCause
  const counted = evictions.some(same)
    ? evictions.map((entry) => (same(entry) ? { ...entry, count: (asNumber(entry["count"]) ?? 0) + 1 } : entry))
    : [...evictions, { reason, underlyingCause, count: 1 }]
  return { ...(asRecord(status["schedulingStats"]) ?? {}), evictions: counted }
}

/** Kueue's decision about `workload` at `now`, given its queue (undefined = no such queue) and usage. */
export const decideWorkload = (
  workload: KubeObject,
  queue: KueueQueueOptions | undefined,
  usage: QueueUsage,
  now: number
): WorkloadDecision => {
  const status: Record<string, unknown> = copyJson({ ...(asRecord(workload["status"]) ?? {}) })
  const stamp = formatTimestamp(now)
  let conditions = readConditions(status["conditions"])
  const set = (type: string, state: Condition["status"], reason: string, message: string) => {
    conditions = setCondition(conditions, { type, status: state, reason, message }, stamp, maxWorkloadConditions)
  }
  let checks = queue === undefined ? checksOf(workload) : syncChecks(checksOf(workload), queue.admissionChecks ?? [], stamp)
  const done = (extra: { deactivate?: boolean; reserves?: boolean } = {}): WorkloadDecision => ({
    status: { ...status, ...(checks.length > 0 || status["admissionChecks"] !== undefined ? { admissionChecks: checks } : {}), conditions },
    deactivate: extra.deactivate ?? false,
    reserves: extra.reserves ?? false
  })
  if (isConditionTrue(conditions, "Finished")) return { status: asRecord(workload["status"]) ?? {}, deactivate: false, reserves: false }
  const reserved = isConditionTrue(conditions, "QuotaReserved")
  const evicted = isConditionTrue(conditions, "Evicted")

  if (at(workload, "spec", "active") === false) {
    if (!evicted) {
      const target = findCondition(conditions, "DeactivationTarget")
      if (target?.status === "True") {
        set("Evicted", "True", `DeactivatedDueTo${target.reason}`, `The workload is deactivated due to ${target.message}`)
        status["schedulingStats"] = countEviction(status, "Deactivated", target.reason)
      } else {
        set("Evicted", "True", "Deactivated", "The workload is deactivated")
        status["schedulingStats"] = countEviction(status, "Deactivated", "")
      }
      conditions = removeCondition(conditions, "DeactivationTarget")
      checks = resetChecks(checks, stamp)
    }
    return done()
  }
  const rejected = checksInState(checks, "Rejected")
  if (rejected !== undefined) {
    set("DeactivationTarget", "True", "AdmissionCheck", rejected)
    return done({ deactivate: true })
  }
  if (evicted && reserved) return done()
  const retry = checksInState(checks, "Retry")
  if (retry !== undefined) {
    checks = resetChecks(checks, stamp)
    if (reserved) {
      set("Evicted", "True", "AdmissionCheck", `Evicted due to ${retry}`)
      set("Admitted", "False", "UnsatisfiedAdmissionChecks", "The workload has not all checks ready")
      status["schedulingStats"] = countEviction(status, "AdmissionCheck", "")
      return done()
    }
  }
  if (queue === undefined) {
    set("QuotaReserved", "False", "Inadmissible", `LocalQueue ${asString(at(workload, "spec", "queueName")) ?? ""} doesn't exist`)
    return done()
  }
  let reserves = false
  if (!reserved) {
    const gates = parseAdmissionGates(annotationsOf(workload)[admissionGatedByAnnotation])
    if (gates.length > 0) {
      set("QuotaReserved", "False", "AdmissionGated", `Admission is gated by: ${gates.join(",")}`)
      return done()
    }
    const demand = demandOf(workload)
    const shortfall = quotaShortfall(queue, usage, demand.gpus, demand)
    if (shortfall !== undefined) {
      set("QuotaReserved", "False", "Pending", shortfall)
      return done()
    }
    const clusterQueue = queue.clusterQueue ?? asString(at(workload, "spec", "queueName")) ?? ""
    set("QuotaReserved", "True", "QuotaReserved", `Quota reserved in ClusterQueue ${clusterQueue}`)
    const previous = findCondition(conditions, "Evicted")
    if (previous?.status === "True") set("Evicted", "False", "QuotaReserved", `Previously: ${previous.message}`)
    status["admission"] = admissionFor(workload, clusterQueue)
    reserves = true
  }
  if (checks.every((check) => check["state"] === "Ready") && !isConditionTrue(conditions, "Admitted")) {
    set("Admitted", "True", "Admitted", "The workload is admitted")
  }
  return done({ reserves })
}

/** The Workload's status once its job has stopped after an eviction: quota released, maybe requeued. */
export const releasedStatus = (workload: KubeObject, now: number): JsonRecord => {
  const { admission: _admission, ...status } = copyJson({ ...(asRecord(workload["status"]) ?? {}) })
  const stamp = formatTimestamp(now)
  const conditions = readConditions(status["conditions"])
  const evicted = findCondition(conditions, "Evicted")
  // Only evictions Kueue retries by itself requeue; a deactivated Workload waits to be reactivated.
  const requeued = evicted?.reason === "AdmissionCheck" || evicted?.reason === "Preempted"
  const steps: ReadonlyArray<Omit<Condition, "lastTransitionTime">> = [
    { type: "QuotaReserved", status: "False", reason: "Pending", message: evicted?.message ?? "The workload was evicted" },
    { type: "Admitted", status: "False", reason: "NoReservation", message: "The workload has no reservation" },
    { type: "Requeued", status: requeued ? "True" : "False", reason: evicted?.reason ?? "Evicted", message: evicted?.message ?? "" }
  ]
  return { ...status, conditions: steps.reduce((all, step) => setCondition(all, step, stamp, maxWorkloadConditions), conditions) }
}
