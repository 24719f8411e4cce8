// Finding the runtime a TrainJob refers to: a TrainingRuntime in its own namespace or a
// ClusterTrainingRuntime, as spec.runtimeRef says (kind defaults to ClusterTrainingRuntime).
import type { KubeObject, SystemClient } from "../../Api.ts"
import { asString, at, namespaceOf } from "../shared/KubeFields.ts"
import { trainerGroup } from "../shared/WellKnown.ts"

/** The runtime found, or why none could be. */
export type RuntimeLookup =
  | { readonly runtime: KubeObject }
  | { readonly problem: string }

/** Where a TrainJob's runtime is stored: its resource, namespace (none for a cluster runtime) and name. */
export interface RuntimeAddress {
  readonly resource: "trainingruntimes" | "clustertrainingruntimes"
  readonly namespace: string | undefined
  readonly name: string
}

/** Where the runtime that `job` refers to would be stored, or why its reference names none. */
export const runtimeAddressOf = (job: KubeObject): RuntimeAddress | { readonly problem: string } => {
  const name = asString(at(job, "spec", "runtimeRef", "name"))
  const kind = asString(at(job, "spec", "runtimeRef", "kind")) ?? "ClusterTrainingRuntime"
  const group = asString(at(job, "spec", "runtimeRef", "apiGroup")) ?? trainerGroup
  if (name === undefined) return { problem: "spec.runtimeRef.name: Required value" }
  if (group !== trainerGroup) return { problem: `spec.runtimeRef.apiGroup: Unsupported value: "${group}"` }
  if (kind !== "TrainingRuntime" && kind !== "ClusterTrainingRuntime") {
    return { problem: `spec.runtimeRef.kind: Unsupported value: "${kind}"` }
  }
  return kind === "TrainingRuntime"
    ? { resource: "trainingruntimes", namespace: namespaceOf(job) ?? "default", name }
    : { resource: "clustertrainingruntimes", namespace: undefined, name }
}

/** Looks up the runtime that `job` refers to. */
export const lookUpRuntime = (system: SystemClient, job: KubeObject): RuntimeLookup => {
  const address = runtimeAddressOf(job)
  if ("problem" in address) return address
  const found = system.get(address.resource, address.namespace, address.name)
  const kind = address.resource === "trainingruntimes" ? "TrainingRuntime" : "ClusterTrainingRuntime"
  return found === undefined
    ? { problem: `spec.runtimeRef: Not found: ${kind} "${address.name}"` }
    : { runtime: found }
}
