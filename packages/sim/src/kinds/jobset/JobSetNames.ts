// The names the JobSet controller gives its Jobs and the labels and annotations it writes on them and
// on their pod templates (so every pod carries them), as kubernetes-sigs/jobset's API defines them.
import { createHash } from "node:crypto"

/** apiVersion of JobSet objects. */
export const jobSetApiVersion = "jobset.x-k8s.io/v1alpha2"
/** The JobSet a Job or pod belongs to. */
export const jobSetNameKey = "jobset.sigs.k8s.io/jobset-name"
/** The uid of that JobSet. */
export const jobSetUidKey = "jobset.sigs.k8s.io/jobset-uid"
/** The replicated job a Job or pod belongs to. */
export const replicatedJobNameKey = "jobset.sigs.k8s.io/replicatedjob-name"
/** How many Jobs the replicated job has. */
export const replicatedJobReplicasKey = "jobset.sigs.k8s.io/replicatedjob-replicas"
/** How many Jobs the whole JobSet has. */
export const globalReplicasKey = "jobset.sigs.k8s.io/global-replicas"
/** The Job's index within its replicated job. */
export const jobIndexKey = "jobset.sigs.k8s.io/job-index"
/** The Job's index across the whole JobSet. */
export const jobGlobalIndexKey = "jobset.sigs.k8s.io/job-global-index"
/** A hash of the Job's namespaced name (40 hex digits: it must fit a label value). */
export const jobKeyKey = "jobset.sigs.k8s.io/job-key"
/** How many times the JobSet has been restarted. */
export const restartAttemptKey = "jobset.sigs.k8s.io/restart-attempt"

/** The name JobSet gives the `index`th Job of a replicated job: `<jobset>-<replicatedJob>-<index>`. */
export const jobNameFor = (jobSet: string, replicatedJob: string, index: number): string => `${jobSet}-${replicatedJob}-${index}`

/** The value of the job-key label: the hex SHA-1 of `<namespace>/<job name>`. */
export const jobKeyFor = (namespace: string, jobName: string): string => createHash("sha1").update(`${namespace}/${jobName}`).digest("hex")
