// The fields of Trainer's TrainJob CRD (trainer.kubeflow.org/v1alpha1). Pod specs are left open.
import { condition, embeddedMeta, envVar, kindFields, podTemplate, resourceRequirements } from "../../core/CoreFields.ts"
import { type FieldTree, fields, listOf } from "../../../apiserver/validation/FieldTree.ts"

const strings = listOf("string")

const initializerStep = fields({ env: listOf(envVar), secretRef: fields({ name: "string" }), storageUri: "string" })

const trainer = fields({
  args: strings,
  command: strings,
  env: listOf(envVar),
  image: "string",
  numNodes: "integer",
  numProcPerNode: "integer",
  resourcesPerNode: resourceRequirements
})

// A runtime patch reaches the pod template of each replicated job and no further into the Job spec.
const runtimePatch = fields({
  manager: "string",
  time: "string",
  trainingRuntimeSpec: fields({
    template: fields({
      metadata: embeddedMeta,
      spec: fields({
        replicatedJobs: listOf(fields({ name: "string", template: fields({ metadata: embeddedMeta, spec: fields({ template: podTemplate }) }) }))
      })
    })
  })
})

const trainJobStatus = fields({
  conditions: listOf(condition),
  jobsStatus: listOf(fields({ active: "integer", failed: "integer", name: "string", ready: "integer", succeeded: "integer", suspended: "integer" })),
  trainerStatus: fields({
    estimatedRemainingSeconds: "integer",
    lastUpdatedTime: "string",
    metrics: listOf(fields({ name: "string", value: "string" })),
    progressPercentage: "integer"
  })
})

/** A TrainJob. */
export const trainJobFields: FieldTree = kindFields({
  spec: fields({
    activeDeadlineSeconds: "integer",
    initializer: fields({ dataset: initializerStep, model: initializerStep }),
    managedBy: "string",
    runtimePatches: listOf(runtimePatch),
    runtimeRef: fields({ apiGroup: "string", kind: "string", name: "string" }),
    suspend: "boolean",
    trainer
  }),
  status: trainJobStatus
})
