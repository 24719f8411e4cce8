// The labels and annotations the Job controller (batch/v1) writes on the pods it creates, and the name
// of the env var it gives every container of an Indexed Job's pod.

/** apiVersion of Job objects. */
export const jobApiVersion = "batch/v1"
/** The Job's name, on its pods. */
export const jobNameLabel = "batch.kubernetes.io/job-name"
/** The Job's uid, on its pods and its selector. */
export const controllerUidLabel = "batch.kubernetes.io/controller-uid"
/** The legacy forms of the two labels above, still written. */
export const legacyJobNameLabel = "job-name"
/** The legacy form of the controller-uid label. */
export const legacyControllerUidLabel = "controller-uid"
/** An Indexed Job pod's completion index (label and annotation). */
export const completionIndexKey = "batch.kubernetes.io/job-completion-index"
/** The env var carrying the completion index. */
export const completionIndexEnv = "JOB_COMPLETION_INDEX"

/** The generateName of the pod for `index` of an Indexed Job: `<job>-<index>-`. */
export const podGenerateNameFor = (job: string, index: number): string => `${job}-${index}-`
