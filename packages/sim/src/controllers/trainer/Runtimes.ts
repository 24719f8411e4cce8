// Finding the runtime a TrainJob refers to: a TrainingRuntime in its own namespace or a
// ClusterTrainingRuntime, as spec.runtimeRef says (kind defaults to ClusterTrainingRuntime).
import type { KubeObject, SystemClient } from "../../Api.ts"
import { asString, at, namespaceOf } from "../shared/KubeFields.ts"
import { trainerGroup } from "../shared/WellKnown.ts"

/** The runtime found, or why none could be. */
export type RuntimeLookup =
  | { readonly runtime: KubeObject }
  | { readonly problem: string }

/** Looks up the runtime that `job` refers to. */
export const lookUpRuntime = (system: SystemClient, job: KubeObject): RuntimeLookup => {
  const name = asString(at(job, "spec", "runtimeRef", "name"))
  const kind = asString(at(job, "spec", "runtimeRef", "kind")) ?? "ClusterTrainingRuntime"
  const group = asString(at(job, "spec", "runtimeRef", "apiGroup")) ?? trainerGroup
  if (name === undefined) return { problem: "spec.runtimeRef.name: Required value" }
  if (group !== trainerGroup) return { problem: `spec.runtimeRef.apiGroup: Unsupported value: "${group}"` }
  if (kind !== "TrainingRuntime" && kind !== "ClusterTrainingRuntime") {
    return { problem: `spec.runtimeRef.kind: Unsupported value: "${kind}"` }
  }
  const found = kind === "TrainingRuntime"
    ? system.get("trainingruntimes", namespaceOf(job) ?? "default", name)
    : system.get("clustertrainingruntimes", undefined, name)
  return found === undefined
    ? { problem: `spec.runtimeRef: Not found: ${kind} "${name}"` }
    : { runtime: found }
}
