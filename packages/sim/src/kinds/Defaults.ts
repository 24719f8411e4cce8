// The defaults the API server writes into objects before validation: those of the CRD schemas
// (TrainJob runtimeRef, managedBy and suspend; Workload pod set name and count) and a Namespace's
// name label.
import { isJsonObject } from "../apiserver/store/JsonValue.ts"
import { trainerManager } from "./trainer/TrainJobRules.ts"

const withDefaults = (value: unknown, defaults: Record<string, unknown>): unknown =>
  isJsonObject(value) ? { ...defaults, ...Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) } : value

const trainJob = (object: Record<string, unknown>): Record<string, unknown> => {
  const spec = object["spec"]
  if (!isJsonObject(spec)) return object
  const runtimeRef = withDefaults(spec["runtimeRef"], { apiGroup: "trainer.kubeflow.org", kind: "ClusterTrainingRuntime" })
  return {
    ...object,
    spec: { ...(withDefaults(spec, { managedBy: trainerManager, suspend: false }) as Record<string, unknown>), ...(runtimeRef === undefined ? {} : { runtimeRef }) }
  }
}

const workload = (object: Record<string, unknown>): Record<string, unknown> => {
  const spec = object["spec"]
  if (!isJsonObject(spec) || !Array.isArray(spec["podSets"])) return object
  return { ...object, spec: { ...spec, podSets: spec["podSets"].map((p) => withDefaults(p, { name: "main", count: 1 })) } }
}

const namespace = (object: Record<string, unknown>): Record<string, unknown> => {
  const metadata = isJsonObject(object["metadata"]) ? object["metadata"] : {}
  const labels = isJsonObject(metadata["labels"]) ? metadata["labels"] : {}
  return { ...object, metadata: { ...metadata, labels: { ...labels, "kubernetes.io/metadata.name": metadata["name"] } } }
}

/** The object with the server's defaults filled in, by resource plural. */
export const applyDefaults = (plural: string, object: Record<string, unknown>): Record<string, unknown> => {
  switch (plural) {
    case "trainjobs":
      return trainJob(object)
    case "workloads":
      return workload(object)
    case "namespaces":
      return namespace(object)
    default:
      return object
  }
}
