// The state of a Kubeflow Trainer TrainJob, as Trainer's own fields tell it: a Failed or Complete
// condition ends it; otherwise spec.suspend holds it; otherwise it runs once a replicated job has an
// active or ready pod (status.jobsStatus). What dispatch makes of it (held, queued, stopping) is the
// lifecycle's, on top of this.
import { conditionOf } from "./Conditions.ts"
import { arrayAt, valueAt } from "./JsonPath.ts"

/** A TrainJob's state by Trainer's fields. */
export type TrainJobState =
  /** The Complete condition is True, with its reason (e.g. AllJobsCompleted). */
  | { readonly state: "Complete"; readonly reason: string }
  /** The Failed condition is True, with its reason (e.g. DeadlineExceeded) and message. */
  | { readonly state: "Failed"; readonly reason: string; readonly message: string }
  /** Not finished, and spec.suspend is true. */
  | { readonly state: "Suspended" }
  /** Not finished nor suspended, with an active or ready pod. */
  | { readonly state: "Running" }
  /** Not finished nor suspended, and no pod is active or ready yet. */
  | { readonly state: "Pending" }

/** Whether some replicated job of the TrainJob has an active or ready pod. */
export const hasActivePods = (trainJob: unknown): boolean =>
  arrayAt(trainJob, ["status", "jobsStatus"]).some((job) => {
    const active = valueAt(job, ["active"])
    const ready = valueAt(job, ["ready"])
    return (typeof active === "number" && active > 0) || (typeof ready === "number" && ready > 0)
  })

/** The TrainJob's state by Trainer's fields. Trainer sets one of Complete and Failed; should both be True, Complete wins, as the work did finish. */
export const trainJobState = (trainJob: unknown): TrainJobState => {
  const complete = conditionOf(trainJob, "Complete")
  if (complete?.status === "True") return { state: "Complete", reason: complete.reason }
  const failed = conditionOf(trainJob, "Failed")
  if (failed?.status === "True") return { state: "Failed", reason: failed.reason, message: failed.message }
  if (valueAt(trainJob, ["spec", "suspend"]) === true) return { state: "Suspended" }
  return hasActivePods(trainJob) ? { state: "Running" } : { state: "Pending" }
}
