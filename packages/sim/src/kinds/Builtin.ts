// The kinds a simulator serves unless told otherwise: one entry per kind, each defined in its own folder
// (kinds/<group>/<kind>/). The order is the API's: discovery lists groups and resources in it.
import type { Kind } from "./Kind.ts"
import { trainJob } from "./trainer/trainjob/TrainJob.ts"
import { trainingRuntime } from "./trainer/trainingruntime/TrainingRuntime.ts"
import { clusterTrainingRuntime } from "./trainer/clustertrainingruntime/ClusterTrainingRuntime.ts"
import { workload } from "./kueue/workload/Workload.ts"
import { admissionCheck } from "./kueue/admissioncheck/AdmissionCheck.ts"
import { localQueue } from "./kueue/localqueue/LocalQueue.ts"
import { clusterQueue } from "./kueue/clusterqueue/ClusterQueue.ts"
import { jobSet } from "./jobset/jobset/JobSet.ts"
import { job } from "./batch/job/Job.ts"
import { namespace } from "./core/namespace/Namespace.ts"
import { configMap } from "./core/configmap/ConfigMap.ts"
import { pod } from "./core/pod/Pod.ts"
import { event } from "./core/event/Event.ts"
import { serviceAccount } from "./core/serviceaccount/ServiceAccount.ts"
import { secret } from "./core/secret/Secret.ts"
import { service } from "./core/service/Service.ts"
import { persistentVolumeClaim } from "./core/persistentvolumeclaim/PersistentVolumeClaim.ts"
import { deployment } from "./apps/deployment/Deployment.ts"
import { podDisruptionBudget } from "./policy/poddisruptionbudget/PodDisruptionBudget.ts"
import { role } from "./rbac/role/Role.ts"
import { clusterRole } from "./rbac/clusterrole/ClusterRole.ts"
import { roleBinding } from "./rbac/rolebinding/RoleBinding.ts"
import { clusterRoleBinding } from "./rbac/clusterrolebinding/ClusterRoleBinding.ts"

/**
 * The built-in kinds: Trainer's, Kueue's and JobSet's custom resources, the core and batch kinds they run
 * as, and the kinds every cluster serves that a workload is deployed with (Deployment, Service,
 * ServiceAccount, Secret, PersistentVolumeClaim, PodDisruptionBudget).
 */
export const builtinKinds: ReadonlyArray<Kind> = [
  trainJob,
  trainingRuntime,
  clusterTrainingRuntime,
  workload,
  admissionCheck,
  localQueue,
  clusterQueue,
  jobSet,
  job,
  deployment,
  podDisruptionBudget,
  namespace,
  configMap,
  secret,
  service,
  serviceAccount,
  persistentVolumeClaim,
  pod,
  event
]

/**
 * RBAC's kinds, served by a simulator that authorizes with RBAC (and by one that lists them among its
 * kinds): a simulator without RBAC serves the discovery its clients know.
 */
export const rbacKinds: ReadonlyArray<Kind> = [role, clusterRole, roleBinding, clusterRoleBinding]

/** The resources the simulator serves unless told otherwise. */
export const Resources: ReadonlyArray<Kind> = builtinKinds
