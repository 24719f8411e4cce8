// Names that Kubeflow Trainer, Kueue and Kubernetes define; dispatch uses them and cannot choose them.

/** Trainer's API group. */
export const TRAINER_GROUP = "trainer.kubeflow.org"
/** Trainer's only API version, as an apiVersion. */
export const TRAINER_API_VERSION = "trainer.kubeflow.org/v1alpha1"
/** The label that marks a runtime's trainer step. */
export const ANCESTOR_STEP_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"
/** The value of ANCESTOR_STEP_LABEL on the trainer step. */
export const TRAINER_STEP = "trainer"
/** The replicated job and container name Trainer expects when no step is labelled. */
export const NODE = "node"
/** The only spec.managedBy under which Trainer runs the job here. */
export const TRAINER_CONTROLLER = "trainer.kubeflow.org/trainjob-controller"
/** Label prefix of Trainer's own runtime labels, carried onto the runtime copy. */
export const TRAINER_LABEL_PREFIX = "trainer.kubeflow.org/"
/** Kueue's queue label. */
export const KUEUE_QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
/** Trainer's limit on spec.trainer.command and spec.trainer.env items. */
export const TRAINER_MAX_ITEMS = 128
/** Trainer's limit on the length of one command item. */
export const TRAINER_MAX_ITEM_CHARS = 1_048_576
/** Trainer's limit on spec.trainer.image. */
export const TRAINER_MAX_IMAGE_CHARS = 500
/** The largest int32, the type of numNodes and numProcPerNode. */
export const MAX_INT32 = 2_147_483_647
/** The ML policies of which a runtime may set at most one. */
export const ML_POLICIES = ["torch", "mpi", "jax", "xgboost", "flux"] as const
