// Trainer's TrainJob (trainer.kubeflow.org/v1alpha1): what to train, from which runtime.
import { defineKind } from "../../Kind.ts"
import { ageColumn, column, nameColumn, text } from "../../Columns.ts"
import { withDefaults } from "../../Defaults.ts"
import { isJsonObject } from "../../../apiserver/store/JsonValue.ts"
import { trainJobFields } from "./TrainJobFields.ts"
import { checkTrainJob, trainerManager } from "./TrainJobRules.ts"
import { printedTrainJobState } from "./TrainJobState.ts"

const runtimeRefDefaults = { apiGroup: "trainer.kubeflow.org", kind: "ClusterTrainingRuntime" }
const specDefaults = { managedBy: trainerManager, suspend: false }

// The CRD's defaults: runtimeRef's group and kind, managedBy and suspend.
const defaults = (object: Record<string, unknown>): Record<string, unknown> => {
  const spec = object["spec"]
  if (!isJsonObject(spec)) return object
  const runtimeRef = withDefaults(spec["runtimeRef"], runtimeRefDefaults)
  const defaulted = withDefaults(spec, specDefaults) as Record<string, unknown>
  if (runtimeRef !== undefined) defaulted["runtimeRef"] = runtimeRef
  return { ...object, spec: defaulted }
}

/** TrainJob. */
export const trainJob = defineKind({
  group: "trainer.kubeflow.org",
  versions: ["v1alpha1"],
  kind: "TrainJob",
  listKind: "TrainJobList",
  plural: "trainjobs",
  singular: "trainjob",
  shortNames: [],
  namespaced: true,
  hasStatus: true,
  fields: trainJobFields,
  strategy: { defaults, validate: checkTrainJob },
  columns: [nameColumn, column("State", "string", "Custom resource definition column (in JSONPath format): .status.conditions[-1:].type", (o) => text(printedTrainJobState(o))), ageColumn],
  descriptions: {
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
})
