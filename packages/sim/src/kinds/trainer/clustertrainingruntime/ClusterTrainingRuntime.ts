// Trainer's ClusterTrainingRuntime (trainer.kubeflow.org/v1alpha1): a TrainingRuntime every namespace can use.
import { defineKind } from "../../Kind.ts"
import { runtimeParts } from "../trainingruntime/TrainingRuntime.ts"

/** ClusterTrainingRuntime. */
export const clusterTrainingRuntime = defineKind({
  ...runtimeParts,
  kind: "ClusterTrainingRuntime",
  listKind: "ClusterTrainingRuntimeList",
  plural: "clustertrainingruntimes",
  singular: "clustertrainingruntime",
  namespaced: false
})
