/** A resource Start and the lifecycle talk to: where it lives in the API. */
export interface ResourceKind {
  readonly group: string
  readonly version: string
  readonly plural: string
  readonly kind: string
  readonly namespaced: boolean
}

/** Kubeflow Trainer's TrainJob. */
export const TrainJobs: ResourceKind = { group: "trainer.kubeflow.org", version: "v1alpha1", plural: "trainjobs", kind: "TrainJob", namespaced: true }
/** A namespaced Trainer runtime (also the kind of dispatch's private copy). */
export const TrainingRuntimes: ResourceKind = { group: "trainer.kubeflow.org", version: "v1alpha1", plural: "trainingruntimes", kind: "TrainingRuntime", namespaced: true }
/** A cluster-scoped Trainer runtime. */
export const ClusterTrainingRuntimes: ResourceKind = { group: "trainer.kubeflow.org", version: "v1alpha1", plural: "clustertrainingruntimes", kind: "ClusterTrainingRuntime", namespaced: false }
/** Kueue's Workload; v1beta1 is served by every Kueue that integrates TrainJob. */
export const Workloads: ResourceKind = { group: "kueue.x-k8s.io", version: "v1beta1", plural: "workloads", kind: "Workload", namespaced: true }

/** A core Pod: the containers a TrainJob's nodes run in. */
export const Pods: ResourceKind = { group: "", version: "v1", plural: "pods", kind: "Pod", namespaced: true }

/** Names one object: its namespace (absent for cluster-scoped kinds) and name. */
export interface ObjectKey {
  readonly namespace?: string | undefined
  readonly name: string
}

/** `create trainjobs default/x`: how a call is named in errors and logs. */
export const describeCall = (verb: string, kind: ResourceKind, key: { readonly namespace?: string | undefined; readonly name?: string | undefined }): string => {
  const where = key.namespace === undefined ? (key.name ?? "") : `${key.namespace}/${key.name ?? ""}`
  return `${verb} ${kind.plural}${where === "" ? "" : ` ${where}`}`
}
