// Trainer's TrainingRuntime (trainer.kubeflow.org/v1alpha1): a namespaced blueprint for TrainJobs.
import { type KindDefinition, defineKind } from "../../Kind.ts"
import { checkRuntime } from "./RuntimeRules.ts"
import { trainingRuntimeFields } from "./TrainingRuntimeFields.ts"

/** What a TrainingRuntime and a ClusterTrainingRuntime share: the schema, the rules and the descriptions. */
export const runtimeParts = {
  group: "trainer.kubeflow.org",
  versions: ["v1alpha1"],
  shortNames: [],
  hasStatus: false,
  fields: trainingRuntimeFields,
  strategy: { validate: checkRuntime },
  descriptions: {
  spec: "A reusable blueprint for TrainJobs: the ML policy, the pod group policy and the JobSet template.",
  "spec.mlPolicy": "How the training framework is set up: node count and the framework's own settings.",
  "spec.mlPolicy.numNodes": "The default number of training nodes.",
  "spec.mlPolicy.torch": "PyTorch distributed training (torchrun's PET_* variables are injected).",
  "spec.mlPolicy.mpi": "MPI training with a launcher and SSH between nodes.",
  "spec.podGroupPolicy": "Gang scheduling, so all of a job's pods start together or not at all.",
  "spec.template": "The JobSet each TrainJob of this runtime becomes.",
  "spec.template.spec": "The JobSet's spec: its replicated jobs and policies."
}
} satisfies Partial<KindDefinition>

/** TrainingRuntime. */
export const trainingRuntime = defineKind({
  ...runtimeParts,
  kind: "TrainingRuntime",
  listKind: "TrainingRuntimeList",
  plural: "trainingruntimes",
  singular: "trainingruntime",
  namespaced: true
})
