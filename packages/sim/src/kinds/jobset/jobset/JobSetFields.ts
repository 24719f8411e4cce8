// The fields of JobSet (jobset.x-k8s.io/v1alpha2): its spec, which Trainer's runtimes embed as their
// template, and its status. The batch/v1 subtrees of a Job spec (selector, podFailurePolicy,
// successPolicy), pod specs and volume claim templates are left open.
import { condition, embeddedMeta, kindFields, podTemplate } from "../../core/CoreFields.ts"
import { type FieldTree, fields, listOf } from "../../../apiserver/validation/FieldTree.ts"

const strings = listOf("string")

const jobSpec = fields({
  activeDeadlineSeconds: "integer",
  backoffLimit: "integer",
  backoffLimitPerIndex: "integer",
  completionMode: "string",
  completions: "integer",
  managedBy: "string",
  manualSelector: "boolean",
  maxFailedIndexes: "integer",
  parallelism: "integer",
  podFailurePolicy: "open",
  podReplacementPolicy: "string",
  selector: "open",
  successPolicy: "open",
  suspend: "boolean",
  template: podTemplate,
  ttlSecondsAfterFinished: "integer"
})

/** A JobSet's spec (also the template of a TrainingRuntime). */
export const jobSetSpec: FieldTree = fields({
  coordinator: fields({ jobIndex: "integer", podIndex: "integer", replicatedJob: "string" }),
  failurePolicy: fields({
    maxRestarts: "integer",
    restartStrategy: "string",
    rules: listOf(
      fields({ action: "string", name: "string", onJobFailureMessagePatterns: strings, onJobFailureReasons: strings, targetReplicatedJobs: strings })
    )
  }),
  managedBy: "string",
  network: fields({ enableDNSHostnames: "boolean", publishNotReadyAddresses: "boolean", subdomain: "string" }),
  replicatedJobs: listOf(
    fields({
      dependsOn: listOf(fields({ name: "string", status: "string" })),
      groupName: "string",
      name: "string",
      replicas: "integer",
      template: fields({ metadata: embeddedMeta, spec: jobSpec })
    })
  ),
  startupPolicy: fields({ startupPolicyOrder: "string" }),
  successPolicy: fields({ operator: "string", targetReplicatedJobs: strings }),
  suspend: "boolean",
  ttlSecondsAfterFinished: "integer",
  volumeClaimPolicies: listOf(fields({ retentionPolicy: fields({ whenDeleted: "string" }), templates: listOf("open") }))
})

/** A JobSet. */
export const jobSetFields: FieldTree = kindFields({
  spec: jobSetSpec,
  status: fields({
    conditions: listOf(condition),
    individualJobRecreates: "integer",
    replicatedJobsStatus: listOf(
      fields({ active: "integer", failed: "integer", name: "string", ready: "integer", succeeded: "integer", suspended: "integer" })
    ),
    restarts: "integer",
    restartsCountTowardsMax: "integer",
    terminalState: "string"
  })
})
