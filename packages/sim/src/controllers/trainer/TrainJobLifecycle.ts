// The status Trainer gives a TrainJob at a moment of the clock: Suspended while spec.suspend, then
// Resumed and running, then Complete or Failed by its scripted outcome or its active deadline, whichever
// comes first. The run's clock starts at creation, or at the last resume.
import type { KubeObject } from "../../Api.ts"
import { findCondition, isConditionTrue, readConditions, setCondition, type Condition } from "../shared/Conditions.ts"
import { asNumber, asRecord, asString, at, type JsonRecord } from "../shared/KubeFields.ts"
import type { RunOutcome } from "../Options.ts"
import type { ReplicatedJob } from "./ReplicatedJobs.ts"
import { formatTimestamp, parseTimestamp } from "../shared/Timestamps.ts"

/** TrainJob conditions are capped at 8 by the CRD. */
export const maxTrainJobConditions = 8

/** Where a TrainJob stands. */
export type TrainJobPhase = "suspended" | "running" | "finished"

/** A TrainJob's next status and its phase. */
export interface TrainJobStep {
  readonly phase: TrainJobPhase
  readonly status: JsonRecord
  /** The clock time from which the same job would step to another status (Infinity: never, by time alone). */
  readonly dueAt: number
}

type Counts = { readonly active: number; readonly ready: number; readonly succeeded: number; readonly failed: number; readonly suspended: number }
const none: Counts = { active: 0, ready: 0, succeeded: 0, failed: 0, suspended: 0 }

const jobsStatus = (jobs: ReadonlyArray<ReplicatedJob>, counts: (job: ReplicatedJob) => Partial<Counts>) =>
  jobs.map((job) => ({ name: job.name, ...none, ...counts(job) }))

/** Whether the TrainJob has finished (Complete or Failed). */
export const isFinished = (job: KubeObject): boolean => {
  const conditions = readConditions(at(job, "status", "conditions"))
  return isConditionTrue(conditions, "Complete") || isConditionTrue(conditions, "Failed")
}

const runStart = (job: KubeObject, suspended: Condition | undefined): number | undefined =>
  suspended !== undefined
    ? parseTimestamp(suspended.lastTransitionTime)
    : parseTimestamp(asString(at(job, "metadata", "creationTimestamp")))

/** The TrainJob's status at `now`, given its replicated jobs and its scripted outcome. */
export const stepTrainJob = (
  job: KubeObject,
  jobs: ReadonlyArray<ReplicatedJob>,
  outcome: RunOutcome,
  now: number
): TrainJobStep => {
  const status = asRecord(at(job, "status")) ?? {}
  if (isFinished(job)) return { phase: "finished", status, dueAt: Number.POSITIVE_INFINITY }
  const stamp = formatTimestamp(now)
  const set = (conditions: ReadonlyArray<Condition>, type: string, state: Condition["status"], reason: string, message: string) =>
    setCondition(conditions, { type, status: state, reason, message }, stamp, maxTrainJobConditions)
  let conditions = readConditions(status["conditions"])

  if (at(job, "spec", "suspend") === true) {
    conditions = set(conditions, "Suspended", "True", "Suspended", "TrainJob is suspended")
    return { phase: "suspended", status: { ...status, conditions, jobsStatus: jobsStatus(jobs, (j) => ({ suspended: j.replicas })) }, dueAt: Number.POSITIVE_INFINITY }
  }
  if (findCondition(conditions, "Suspended")?.status === "True") {
    conditions = set(conditions, "Suspended", "False", "Resumed", "TrainJob is resumed")
  }
  const recorded = runStart(job, findCondition(conditions, "Suspended"))
  const started = recorded ?? parseTimestamp(stamp) ?? now
  const elapsed = now - started
  const deadlineSeconds = asNumber(at(job, "spec", "activeDeadlineSeconds"))
  const deadlineMs = deadlineSeconds === undefined ? Number.POSITIVE_INFINITY : deadlineSeconds * 1000

  if (elapsed >= outcome.afterMs && outcome.afterMs <= deadlineMs) {
    const complete = outcome.result === "Complete"
    conditions = complete
      ? set(conditions, "Complete", "True", "AllJobsCompleted", outcome.message ?? "jobset completed")
      : set(conditions, "Failed", "True", "FailedJobs", outcome.message ?? "jobset failed: one or more jobs failed")
    const counts = (j: ReplicatedJob): Partial<Counts> =>
      complete || !j.isTrainerStep ? { succeeded: j.replicas } : { failed: j.replicas }
    return { phase: "finished", status: { ...status, conditions, jobsStatus: jobsStatus(jobs, counts) }, dueAt: Number.POSITIVE_INFINITY }
  }
  if (elapsed >= deadlineMs) {
    conditions = set(conditions, "Failed", "True", "DeadlineExceeded", `TrainJob was active longer than its deadline of ${deadlineSeconds}s`)
    return { phase: "finished", status: { ...status, conditions, jobsStatus: jobsStatus(jobs, (j) => ({ failed: j.replicas })) }, dueAt: Number.POSITIVE_INFINITY }
  }
  return {
    phase: "running",
    // A job never suspended has no condition yet; Trainer then leaves the list out.
    status: { ...status, ...(conditions.length > 0 ? { conditions } : {}), jobsStatus: jobsStatus(jobs, (j) => ({ active: j.replicas, ready: j.replicas })) },
    // The run ends by its outcome or its deadline, whichever comes first; a run with no recorded start
    // is timed from now, so it must be looked at again every step.
    dueAt: recorded === undefined ? now : started + Math.min(outcome.afterMs, deadlineMs)
  }
}
