// What the demo shows of the objects on its cluster: one line each, saying what the object is to
// dispatch. Pure: it reads the objects it is given.
import { trainJobState, valueAt } from "@dispatch/kube"
import { type BackendConfig, annotationKeys, labelKeys } from "@dispatch/render"
import type { KubeObject } from "@dispatch/sim"

const text = (value: unknown): string => (typeof value === "string" || typeof value === "number" ? String(value) : "")

const nameOf = (object: KubeObject): string => {
  const namespace = text(valueAt(object, ["metadata", "namespace"]))
  return `${namespace === "" ? "" : `${namespace}/`}${text(valueAt(object, ["metadata", "name"]))}`
}

const owners = (object: KubeObject): string => {
  const list = valueAt(object, ["metadata", "ownerReferences"])
  return Array.isArray(list) ? list.map((o) => `${text(valueAt(o, ["kind"]))} ${text(valueAt(o, ["name"]))}`).join(", ") : ""
}

const describeRuntime = (object: KubeObject, config: BackendConfig): string => {
  const source = text(valueAt(object, ["metadata", "annotations", annotationKeys(config).sourceRuntime]))
  if (source === "") return "the runtime the cluster offers (seeded from the runtime file)"
  const owner = owners(object)
  return `dispatch's private copy of ${source}${owner === "" ? ", no owner yet" : `, owned by ${owner} (deleted with it)`}`
}

const describeTrainJob = (object: KubeObject, config: BackendConfig): string => {
  const trainer = valueAt(object, ["spec", "trainer"])
  const gpus = text(valueAt(trainer, ["resourcesPerNode", "limits", config.gpuResource]))
  const labels = labelKeys(config)
  return [
    `job ${text(valueAt(object, ["metadata", "labels", labels.jobId]))} submission ${text(valueAt(object, ["metadata", "labels", labels.submission]))}`,
    `image ${text(valueAt(trainer, ["image"]))}`,
    `${text(valueAt(trainer, ["numNodes"]))} node(s)${gpus === "" ? "" : ` x ${gpus} ${config.gpuResource}`}`,
    `state ${trainJobState(object).state}`
  ].join(", ")
}

/** One line per object: kind, namespace/name, and what it is. */
export const describeObjects = (objects: ReadonlyArray<KubeObject>, config: BackendConfig): ReadonlyArray<string> => {
  const width = Math.max(0, ...objects.map((o) => `${text(o.kind)} ${nameOf(o)}`.length))
  return objects.map((object) => {
    const what =
      object.kind === "TrainJob"
        ? describeTrainJob(object, config)
        : object.kind === "TrainingRuntime"
          ? describeRuntime(object, config)
          : object.kind === "Workload"
            ? `Kueue's Workload, owned by ${owners(object)}`
            : ""
    return `${`${text(object.kind)} ${nameOf(object)}`.padEnd(width)}  ${what}`
  })
}
