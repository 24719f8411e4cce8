// The defaults the API server writes into objects before validation: those of the CRD schemas
// (TrainJob runtimeRef, managedBy and suspend; Workload pod set name and count) and a Namespace's
// name label.
import { isJsonObject, putOwn } from "../apiserver/store/JsonValue.ts"
import { trainerManager } from "./trainer/TrainJobRules.ts"

// The defaults' keys first, then the value's own (a key of both keeps the defaults' place), as
// `{ ...defaults, ...value }` orders them; built by a loop, as every TrainJob write runs this.
const withDefaults = (value: unknown, defaults: Readonly<Record<string, unknown>>): unknown => {
  if (!isJsonObject(value)) return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(defaults)) out[key] = defaults[key]
  for (const key of Object.keys(value)) if (value[key] !== undefined) putOwn(out, key, value[key])
  return out
}

const runtimeRefDefaults = { apiGroup: "trainer.kubeflow.org", kind: "ClusterTrainingRuntime" }
const trainJobSpecDefaults = { managedBy: trainerManager, suspend: false }

const trainJob = (object: Record<string, unknown>): Record<string, unknown> => {
  const spec = object["spec"]
  if (!isJsonObject(spec)) return object
  const runtimeRef = withDefaults(spec["runtimeRef"], runtimeRefDefaults)
  const defaulted = withDefaults(spec, trainJobSpecDefaults) as Record<string, unknown>
  if (runtimeRef !== undefined) defaulted["runtimeRef"] = runtimeRef
  return { ...object, spec: defaulted }
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
