// What the main fields of each described kind mean, in a sentence, for `kubectl explain`: keyed by the
// field's path in the kind's field tree (list items add no segment). Written for the simulator; a path
// that is not in the tree is a test failure, so descriptions cannot drift from the schema.

const trainJob: Readonly<Record<string, string>> = {
  spec: "What to train: the runtime to start from, the trainer's overrides, and whether it may run.",
  "spec.runtimeRef": "The TrainingRuntime or ClusterTrainingRuntime this job is built from. Cannot be changed.",
  "spec.runtimeRef.apiGroup": "The runtime's API group, trainer.kubeflow.org.",
  "spec.runtimeRef.kind": "TrainingRuntime (in the job's namespace) or ClusterTrainingRuntime (the default).",
  "spec.runtimeRef.name": "The runtime's name.",
  "spec.trainer": "Overrides for the runtime's trainer step: image, command, nodes and resources.",
  "spec.trainer.image": "The container image of the trainer's node container.",
  "spec.trainer.command": "The entrypoint of the trainer's node container.",
  "spec.trainer.args": "The arguments of the trainer's node container.",
  "spec.trainer.env": "Environment variables added to the trainer's node container.",
  "spec.trainer.numNodes": "How many nodes (pods) train together.",
  "spec.trainer.numProcPerNode": "How many training processes each node runs.",
  "spec.trainer.resourcesPerNode": "The compute resources each node's container requests and is limited to.",
  "spec.initializer": "Steps that download the dataset and the model before training starts.",
  "spec.suspend": "While true, no pods run; setting it false starts or resumes the job.",
  "spec.managedBy": "The controller that reconciles this job (Trainer's own by default). Cannot be changed.",
  "spec.activeDeadlineSeconds": "How long the job may run, counted from its start, before it fails as DeadlineExceeded.",
  "spec.runtimePatches": "Changes to the runtime's pod templates, each owned by a manager; changeable only while suspended.",
  status: "How the job is doing, written by Trainer.",
  "status.conditions": "The job's conditions: Suspended, Complete, Failed.",
  "status.jobsStatus": "Counts of the Jobs of each replicated job, by state."
}

const runtime: Readonly<Record<string, string>> = {
  spec: "A reusable blueprint for TrainJobs: the ML policy, the pod group policy and the JobSet template.",
  "spec.mlPolicy": "How the training framework is set up: node count and the framework's own settings.",
  "spec.mlPolicy.numNodes": "The default number of training nodes.",
  "spec.mlPolicy.torch": "PyTorch distributed training (torchrun's PET_* variables are injected).",
  "spec.mlPolicy.mpi": "MPI training with a launcher and SSH between nodes.",
  "spec.podGroupPolicy": "Gang scheduling, so all of a job's pods start together or not at all.",
  "spec.template": "The JobSet each TrainJob of this runtime becomes.",
  "spec.template.spec": "The JobSet's spec: its replicated jobs and policies."
}

const jobSet: Readonly<Record<string, string>> = {
  spec: "A group of Jobs run and ended as one.",
  "spec.replicatedJobs": "The Jobs of the set, each template made into that many replicas.",
  "spec.replicatedJobs.name": "The replicated job's name, part of each of its Jobs' names.",
  "spec.replicatedJobs.replicas": "How many Jobs are made from the template.",
  "spec.replicatedJobs.template": "The Job each replica is made from.",
  "spec.suspend": "While true, the set's Jobs are suspended.",
  "spec.network": "DNS for the pods: a headless service so pods reach each other by hostname.",
  "spec.successPolicy": "When the set counts as complete.",
  "spec.failurePolicy": "When the set fails, and how many times it restarts first.",
  status: "How the set is doing, written by the JobSet controller.",
  "status.terminalState": "Completed or Failed once the set has ended.",
  "status.replicatedJobsStatus": "Counts of each replicated job's Jobs, by state.",
  "status.restarts": "How many times the set was restarted."
}

const workload: Readonly<Record<string, string>> = {
  spec: "A unit of admission in Kueue: the pods a job needs and the queue it waits in.",
  "spec.queueName": "The LocalQueue the workload waits in.",
  "spec.podSets": "The groups of identical pods the job needs, with their counts and templates.",
  "spec.podSets.count": "How many pods of this set.",
  "spec.podSets.name": "The pod set's name.",
  "spec.active": "False deactivates the workload: it is evicted and not admitted again.",
  "spec.priority": "The workload's priority; higher is admitted first.",
  status: "Where the workload is in admission, written by Kueue.",
  "status.admission": "The ClusterQueue and flavors the workload was given quota in.",
  "status.admission.clusterQueue": "The ClusterQueue whose quota the workload holds.",
  "status.admissionChecks": "The state of each admission check the workload must pass.",
  "status.conditions": "QuotaReserved, Admitted, Evicted, Finished and others."
}

const admissionCheck: Readonly<Record<string, string>> = {
  spec: "A check a workload must pass, besides quota, before it is admitted.",
  "spec.controllerName": "The controller that decides this check."
}

const localQueue: Readonly<Record<string, string>> = {
  spec: "A namespaced queue that jobs name; it feeds a ClusterQueue.",
  "spec.clusterQueue": "The ClusterQueue whose quota this queue's workloads use.",
  "spec.stopPolicy": "Hold or HoldAndDrain stops admitting this queue's workloads.",
  status: "Counts of this queue's workloads, written by Kueue.",
  "status.pendingWorkloads": "Workloads waiting for quota.",
  "status.reservingWorkloads": "Workloads holding quota.",
  "status.admittedWorkloads": "Workloads admitted and running."
}

const clusterQueue: Readonly<Record<string, string>> = {
  spec: "A cluster-wide pool of quota that LocalQueues feed workloads into.",
  "spec.resourceGroups": "Resources that share flavors, with each flavor's quotas.",
  "spec.resourceGroups.coveredResources": "The resources this group covers (cpu, memory, nvidia.com/gpu ...).",
  "spec.resourceGroups.flavors": "The flavors of the group's resources, in the order they are tried.",
  "spec.resourceGroups.flavors.name": "The ResourceFlavor's name.",
  "spec.resourceGroups.flavors.resources": "The quota of each covered resource in this flavor.",
  "spec.resourceGroups.flavors.resources.name": "The resource's name.",
  "spec.resourceGroups.flavors.resources.nominalQuota": "The quantity of the resource the queue's workloads may hold at once.",
  "spec.queueingStrategy": "StrictFIFO, or BestEffortFIFO (a workload that does not fit lets later ones go first).",
  "spec.admissionChecks": "Admission checks every workload of this queue must pass.",
  "spec.cohort": "The cohort whose members borrow unused quota from each other (v1beta1).",
  "spec.cohortName": "The cohort whose members borrow unused quota from each other.",
  "spec.namespaceSelector": "The namespaces whose LocalQueues may use this queue.",
  status: "Counts and usage of this queue's workloads, written by Kueue.",
  "status.flavorsUsage": "How much of each flavor's quota admitted workloads use."
}

const configMap: Readonly<Record<string, string>> = {
  data: "Configuration as UTF-8 strings, by key (keys of alphanumerics, '-', '_' and '.').",
  binaryData: "Configuration as base64-encoded bytes, by key; no key may be in data too.",
  immutable: "Once true, data and binaryData cannot change, nor can this be unset."
}

const byPlural: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  trainjobs: trainJob,
  trainingruntimes: runtime,
  clustertrainingruntimes: runtime,
  jobsets: jobSet,
  workloads: workload,
  admissionchecks: admissionCheck,
  localqueues: localQueue,
  clusterqueues: clusterQueue,
  configmaps: configMap
}

/** The descriptions of a resource's fields, by path (none for a kind without any). */
export const descriptionsOf = (plural: string): Readonly<Record<string, string>> => byPlural[plural] ?? {}
