// Names that Kubeflow Trainer and Kueue give meaning to (labels, annotations, managers, resources).

/** Trainer's API group. */
export const trainerGroup = "trainer.kubeflow.org"
/** apiVersion of Trainer's objects. */
export const trainerApiVersion = "trainer.kubeflow.org/v1alpha1"
/** spec.managedBy value meaning "Trainer's own controller runs this job" (also the default). */
export { trainerManager } from "../../kinds/trainer/trainjob/TrainJobRules.ts"
/** Label on a runtime's replicated job naming its step; the trainer step carries "trainer". */
export const ancestorStepLabel = "trainer.kubeflow.org/trainjob-ancestor-step"
/** Name of the trainer container (and of the trainer step in the shipped runtimes). */
export const trainerContainerName = "node"

/** apiVersion Kueue's objects are written with. */
export const kueueApiVersion = "kueue.x-k8s.io/v1beta2"
/** Label naming a job's LocalQueue. */
export const queueNameLabel = "kueue.x-k8s.io/queue-name"
/** Label on a Workload carrying its job's uid. */
export const jobUidLabel = "kueue.x-k8s.io/job-uid"
/** Annotation listing admission gates (comma-separated), copied from the job to its Workload. */
export const admissionGatedByAnnotation = "kueue.x-k8s.io/admission-gated-by"
/** The runtimePatches manager under which Kueue writes its patch. */
export const kueueManager = "kueue.x-k8s.io/manager"
/** Label Kueue puts on an admitted pod set's pods. */
export const podSetLabel = "kueue.x-k8s.io/podset"
/** The GPU resource name counted against queue quotas. */
export const gpuResource = "nvidia.com/gpu"
