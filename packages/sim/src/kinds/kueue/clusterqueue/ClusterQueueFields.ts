// The fields of Kueue's ClusterQueue CRD (kueue.x-k8s.io), the union of v1beta1's and v1beta2's fields.
import { kindFields } from "../../core/CoreFields.ts"
import { type FieldTree, fields, listOf } from "../../../apiserver/validation/FieldTree.ts"
import { fairSharing, flavorUsage, queueCounts } from "../QueueParts.ts"

const strings = listOf("string")

/** A ClusterQueue: quotas by resource group and flavor, and how its Workloads are admitted. */
export const clusterQueueFields: FieldTree = kindFields({
  spec: fields({
    admissionChecks: strings,
    admissionChecksStrategy: fields({ admissionChecks: listOf(fields({ name: "string", onFlavors: strings })) }),
    admissionScope: fields({ admissionMode: "string" }),
    cohort: "string",
    cohortName: "string",
    fairSharing,
    flavorFungibility: fields({ whenCanBorrow: "string", whenCanPreempt: "string" }),
    namespaceSelector: "open",
    preemption: fields({
      borrowWithinCohort: fields({ maxPriorityThreshold: "integer", policy: "string" }),
      reclaimWithinCohort: "string",
      withinClusterQueue: "string"
    }),
    queueingStrategy: "string",
    resourceGroups: listOf(
      fields({
        coveredResources: strings,
        flavors: listOf(
          fields({
            name: "string",
            resources: listOf(fields({ borrowingLimit: "quantity", lendingLimit: "quantity", name: "string", nominalQuota: "quantity" }))
          })
        )
      })
    ),
    stopPolicy: "string"
  }),
  status: fields({ ...queueCounts, flavorsUsage: flavorUsage, pendingWorkloadsStatus: "open" })
})
