// Find's answer, as a pure function of what was read: the TrainJob (Trainer's real conditions and
// jobsStatus), in Kueue mode its Workload, and the InFlight memory of an unanswered create.
import { checkEntry, isHeldEntry } from "./AdmissionChecks.ts"
import { admissionGatedBy, conditionOf, isConditionTrue, parseAdmissionGates, stringAt, trainJobState, type TrainJobState } from "@dispatch/kube"

/** One state of a job's submission, with what Find knows about why. */
export type JobState =
  /** No TrainJob, and no create of one went unanswered within CallBound. */
  | { readonly state: "Absent" }
  /** No TrainJob yet, but a create went unanswered at `sinceMs`: it may still appear until `untilMs`. */
  | { readonly state: "InFlight"; readonly sinceMs: number; readonly untilMs: number }
  /** dispatch's start gate is closed: spec.suspend in plain mode; in Kueue mode its admission gate, or its admission check held Pending. */
  | { readonly state: "Held"; readonly reason: string }
  /** Opened, but not running yet: Kueue has not admitted it, or no pod is active yet. */
  | { readonly state: "Queued"; readonly reason: string }
  /** Not suspended, with an active or ready pod. */
  | { readonly state: "Running" }
  /** Trainer's Complete condition, with its reason (e.g. AllJobsCompleted). */
  | { readonly state: "Succeeded"; readonly reason: string }
  /** Trainer's Failed condition, with its reason (e.g. DeadlineExceeded) and message. */
  | { readonly state: "Failed"; readonly reason: string; readonly message: string }
  /** The TrainJob has a deletionTimestamp. */
  | { readonly state: "Stopping" }

/** Every state name, in the order the docs list them. */
export const JobStateNames = ["Absent", "InFlight", "Held", "Queued", "Running", "Succeeded", "Failed", "Stopping"] as const

/** What Find read about one job. */
export interface Observed {
  readonly mode: "plain" | "kueue"
  /** The TrainJob, or undefined when it does not exist. */
  readonly trainJob: unknown
  /** Kueue mode: the TrainJob's Workload, or undefined when Kueue has not made it (yet). */
  readonly workload: unknown
  /** When a create of this TrainJob last went unanswered, if it did. */
  readonly inFlightAtMs: number | undefined
  readonly nowMs: number
  readonly callBoundMs: number
  /** dispatch's Kueue admission gate, `<labelDomain>/start`. */
  readonly admissionGate: string
  /** dispatch's admission check (kueue.admissionCheck), in Kueue mode. */
  readonly check: string | undefined
}

/** The gates listed on a Workload's admission-gated-by annotation. */
export const admissionGatesOf = (workload: unknown): ReadonlyArray<string> => parseAdmissionGates(stringAt(workload, ["metadata", "annotations", admissionGatedBy]))

/** Whether Trainer has finished the TrainJob: it may then not change. */
export const isFinished = (state: TrainJobState): boolean => state.state === "Complete" || state.state === "Failed"

const kueueHold = (observed: Observed, suspended: boolean): string | undefined => {
  // No live Workload: a new, still suspended TrainJob waits for Kueue to make it (with dispatch's gate);
  // a running one whose Workload is being deleted is not held by anything.
  if (observed.workload === undefined) return suspended ? "Kueue has not made the TrainJob's Workload yet; it is created with dispatch's gate" : undefined
  if (admissionGatesOf(observed.workload).includes(observed.admissionGate)) return `the Workload carries dispatch's gate ${observed.admissionGate}: Open it`
  if (observed.check === undefined) return undefined
  return isHeldEntry(checkEntry(observed.workload, observed.check)) ? `dispatch holds the admission check ${observed.check}: Release it` : undefined
}

const notAdmitted = (workload: unknown): string => {
  const reserved = conditionOf(workload, "QuotaReserved")
  const admitted = conditionOf(workload, "Admitted")
  return admitted?.message || reserved?.message || "Kueue has not admitted the Workload"
}

/** The one state of a job, from what was read. */
export const jobState = (observed: Observed): JobState => {
  const job = observed.trainJob
  if (job === undefined) {
    const since = observed.inFlightAtMs
    if (since !== undefined && observed.nowMs - since < observed.callBoundMs) {
      return { state: "InFlight", sinceMs: since, untilMs: since + observed.callBoundMs }
    }
    return { state: "Absent" }
  }
  if (stringAt(job, ["metadata", "deletionTimestamp"]) !== undefined) return { state: "Stopping" }
  const trainer = trainJobState(job)
  if (trainer.state === "Complete") return { state: "Succeeded", reason: trainer.reason }
  if (trainer.state === "Failed") return { state: "Failed", reason: trainer.reason, message: trainer.message }
  if (observed.mode === "plain") {
    if (trainer.state === "Suspended") return { state: "Held", reason: "spec.suspend is true: Open or Release it" }
    return trainer.state === "Running" ? { state: "Running" } : { state: "Queued", reason: "not suspended, but no pod is active yet" }
  }
  const held = kueueHold(observed, trainer.state === "Suspended")
  if (held !== undefined) return { state: "Held", reason: held }
  if (trainer.state === "Running") return { state: "Running" }
  if (!isConditionTrue(observed.workload, "Admitted")) return { state: "Queued", reason: notAdmitted(observed.workload) }
  return { state: "Queued", reason: "admitted; no pod is active yet" }
}
