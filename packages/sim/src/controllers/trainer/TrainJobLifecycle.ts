// The status Trainer gives a TrainJob at a moment of the clock: Suspended while spec.suspend, then
// Resumed and running, then Complete or Failed as its JobSet ends (or, with no object tree, by its
// scripted outcome), or Failed by its active deadline, whichever comes first. The run's clock starts at
// creation, or at the last resume.
import type { KubeObject } from "../../Api.ts"
import { findCondition, readConditions, setCondition, type Condition } from "../shared/Conditions.ts"
import { asNumber, asRecord, asString, at, type JsonRecord } from "../shared/KubeFields.ts"
import type { RunOutcome } from "../Options.ts"
import type { ReplicatedJob } from "./ReplicatedJobs.ts"
import { formatTimestamp, parseTimestamp } from "../shared/Timestamps.ts"
import { isFinished } from "../../kinds/trainer/trainjob/TrainJobState.ts"

/** TrainJob conditions are capped at 8 by the CRD. */
export const maxTrainJobConditions = 8

/** The Failed condition's message once a TrainJob's active deadline passed, in Trainer's words. */
export const trainJobDeadlineMessage = "TrainJob exceeded its active deadline"

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

/** When the TrainJob's run started: its last resume, or its creation. */
export const runStart = (job: KubeObject, suspended: Condition | undefined = findCondition(readConditions(at(job, "status", "conditions")), "Suspended")): number | undefined =>
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
    conditions = set(conditions, "Failed", "True", "DeadlineExceeded", trainJobDeadlineMessage)
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

/** What a TrainJob's JobSet says of its run: its replicated jobs' counts, and how it ended, if it has. */
export interface JobSetReport {
  readonly counts: ReadonlyMap<string, Partial<Counts>>
  readonly ended?: { readonly result: "Complete" | "Failed"; readonly reason: string; readonly message: string }
}

/** The report of `jobSet`'s status (undefined when it has none yet). */
export const jobSetReport = (jobSet: KubeObject | undefined): JobSetReport | undefined => {
  const entries = at(jobSet, "status", "replicatedJobsStatus")
  if (!Array.isArray(entries)) return undefined
  const counts = new Map<string, Partial<Counts>>()
  for (const entry of entries) {
    const name = asString(at(entry, "name"))
    if (name === undefined) continue
    const count = (field: keyof Counts) => asNumber(at(entry, field)) ?? 0
    counts.set(name, { active: count("active"), ready: count("ready"), succeeded: count("succeeded"), failed: count("failed"), suspended: count("suspended") })
  }
  const conditions = readConditions(at(jobSet, "status", "conditions"))
  const terminal = asString(at(jobSet, "status", "terminalState"))
  const ending = terminal === "Completed" ? findCondition(conditions, "Completed") : terminal === "Failed" ? findCondition(conditions, "Failed") : undefined
  return {
    counts,
    ...(ending === undefined
      ? {}
      : { ended: { result: terminal === "Completed" ? "Complete" : "Failed", reason: ending.reason ?? "", message: ending.message ?? "" } })
  }
}

/**
 * The TrainJob's status at `now` from its JobSet's report, as Trainer derives it: Suspended while
 * spec.suspend; Complete or Failed (the JobSet's reason, and its message unless `message` is given) once
 * the JobSet ended; Failed with DeadlineExceeded once its active deadline passed; its jobsStatus the
 * JobSet's counts (until the JobSet reports, what its Jobs will report). A finished TrainJob keeps its
 * conditions and only follows its JobSet's counts.
 */
export const deriveTrainJob = (
  job: KubeObject,
  jobs: ReadonlyArray<ReplicatedJob>,
  report: JobSetReport | undefined,
  now: number,
  message?: string
): TrainJobStep => {
  const status = asRecord(at(job, "status")) ?? {}
  const reported = (fallback: (job: ReplicatedJob) => Partial<Counts>) =>
    jobsStatus(jobs, (j) => report?.counts.get(j.name) ?? fallback(j))
  if (isFinished(job)) {
    const jobsNow = report === undefined ? status["jobsStatus"] : reported(() => ({}))
    return { phase: "finished", status: { ...status, jobsStatus: jobsNow }, dueAt: Number.POSITIVE_INFINITY }
  }
  const stamp = formatTimestamp(now)
  const set = (conditions: ReadonlyArray<Condition>, type: string, state: Condition["status"], reason: string, text: string) =>
    setCondition(conditions, { type, status: state, reason, message: text }, stamp, maxTrainJobConditions)
  let conditions = readConditions(status["conditions"])
  if (at(job, "spec", "suspend") === true) {
    conditions = set(conditions, "Suspended", "True", "Suspended", "TrainJob is suspended")
    return { phase: "suspended", status: { ...status, conditions, jobsStatus: reported((j) => ({ suspended: j.replicas })) }, dueAt: Number.POSITIVE_INFINITY }
  }
  if (findCondition(conditions, "Suspended")?.status === "True") {
    conditions = set(conditions, "Suspended", "False", "Resumed", "TrainJob is resumed")
  }
  const recorded = runStart(job, findCondition(conditions, "Suspended"))
  const started = recorded ?? parseTimestamp(stamp) ?? now
  const deadlineSeconds = asNumber(at(job, "spec", "activeDeadlineSeconds"))
  const deadlineAt = deadlineSeconds === undefined ? Number.POSITIVE_INFINITY : started + deadlineSeconds * 1000
  const ended = report?.ended
  if (ended !== undefined) {
    conditions = set(conditions, ended.result, "True", ended.reason, message ?? ended.message)
    return { phase: "finished", status: { ...status, conditions, jobsStatus: reported(() => ({})) }, dueAt: Number.POSITIVE_INFINITY }
  }
  if (now >= deadlineAt) {
    conditions = set(conditions, "Failed", "True", "DeadlineExceeded", trainJobDeadlineMessage)
    return { phase: "finished", status: { ...status, conditions, jobsStatus: reported((j) => ({ failed: j.replicas })) }, dueAt: Number.POSITIVE_INFINITY }
  }
  return {
    phase: "running",
    status: { ...status, ...(conditions.length > 0 ? { conditions } : {}), jobsStatus: reported((j) => ({ active: j.replicas, ready: j.replicas })) },
    dueAt: recorded === undefined ? now : deadlineAt
  }
}
