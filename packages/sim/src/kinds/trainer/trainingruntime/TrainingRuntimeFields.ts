// The fields of Trainer's TrainingRuntime and ClusterTrainingRuntime CRDs (trainer.kubeflow.org/v1alpha1):
// an ML policy, a pod group policy and a JobSet template (JobSet's own spec). Pod specs are left open.
import { embeddedMeta, kindFields } from "../../core/CoreFields.ts"
import { type FieldTree, fields, listOf } from "../../../apiserver/validation/FieldTree.ts"
import { jobSetSpec } from "../../jobset/jobset/JobSetFields.ts"

const strings = listOf("string")

/** A TrainingRuntime or ClusterTrainingRuntime (the CRDs define no status). */
export const trainingRuntimeFields: FieldTree = kindFields({
  spec: fields({
    mlPolicy: fields({
      numNodes: "integer",
      torch: fields({ envInjection: fields({ targets: listOf(fields({ containerNames: strings, jobName: "string" })) }) }),
      mpi: fields({ mpiImplementation: "string", numProcPerNode: "integer", runLauncherAsNode: "boolean", sshAuthMountPath: "string" }),
      jax: fields({}),
      xgboost: fields({}),
      flux: fields({ numProcPerNode: "integer" })
    }),
    podGroupPolicy: fields({
      coscheduling: fields({ scheduleTimeoutSeconds: "integer" }),
      volcano: fields({ networkTopology: fields({ highestTierAllowed: "integer", mode: "string" }) })
    }),
    template: fields({ metadata: embeddedMeta, spec: jobSetSpec })
  })
})
