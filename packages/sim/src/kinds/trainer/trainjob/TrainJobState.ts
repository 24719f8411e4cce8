// What the simulator reads of a TrainJob's state: whether it has finished (Trainer's derivation, in
// @dispatch/kube, shared with the library and the CLI) and what the CRD's State printer column shows.
import { trainJobState } from "@dispatch/kube"
import type { KubeObject } from "../../../Api.ts"
import { conditionsOf } from "../../Columns.ts"

/** Whether the TrainJob has finished (Complete or Failed). */
export const isFinished = (object: KubeObject): boolean => {
  const { state } = trainJobState(object)
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
