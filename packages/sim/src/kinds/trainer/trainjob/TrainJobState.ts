// The state a TrainJob is in, read from its conditions and jobsStatus: the one derivation the
// simulator's Table, Trainer's and Kueue's controllers and the CLI share.
import type { KubeObject } from "../../../Api.ts"
import { conditionTrue, conditionsOf, field, record } from "../../Columns.ts"

/** Where a TrainJob stands. */
export type TrainJobState = "Failed" | "Complete" | "Suspended" | "Running" | "Pending"

/** A summary of the state a TrainJob is in (not what kubectl prints: see printedTrainJobState). */
export const trainJobState = (object: KubeObject): TrainJobState => {
  if (conditionTrue(object, "Failed")) return "Failed"
  if (conditionTrue(object, "Complete")) return "Complete"
  if (conditionTrue(object, "Suspended")) return "Suspended"
  const jobs = field(object, "status", "jobsStatus")
  const running = Array.isArray(jobs) && jobs.some((j) => Number(record(j)["active"] ?? 0) > 0 || Number(record(j)["ready"] ?? 0) > 0)
  return running ? "Running" : "Pending"
}

/** Whether the TrainJob has finished (Complete or Failed). */
export const isFinished = (object: KubeObject): boolean => {
  const state = trainJobState(object)
  return state === "Failed" || state === "Complete"
}

/**
 * What the TrainJob CRD's State printer column shows (`.status.conditions[-1:].type`): the type of the
 * last condition, or "" when there is none.
 */
export const printedTrainJobState = (object: KubeObject): string => {
  const type = conditionsOf(object).at(-1)?.["type"]
  return typeof type === "string" ? type : ""
}
