// The fields of Kueue's queues (kueue.x-k8s.io): LocalQueue and ClusterQueue, each the union of
// v1beta1's and v1beta2's fields (one stored form serves both versions). A ClusterQueue's namespace
// selector (a meta/v1 LabelSelector) and the pending-workload listings are left open.
import { condition, kindFields } from "../core/CoreFields.ts"
import { type FieldTree, fields, listOf } from "../../apiserver/validation/FieldTree.ts"

const strings = listOf("string")

// Per flavor, the quantity of each resource in use (or reserved) and how much of it is borrowed.
const flavorUsage = listOf(fields({ name: "string", resources: listOf(fields({ borrowed: "quantity", name: "string", total: "quantity" })) }))

const fairSharing = fields({ weight: "quantity" })

const queueCounts = {
  admittedWorkloads: "integer",
  conditions: listOf(condition),
  fairSharing: "open",
  pendingWorkloads: "integer",
  reservingWorkloads: "integer",
  flavorsReservation: flavorUsage
} as const

/** A LocalQueue: the namespaced name a job is queued under, pointing at its ClusterQueue. */
export const localQueueFields: FieldTree = kindFields({
  spec: fields({ clusterQueue: "string", fairSharing, stopPolicy: "string" }),
  status: fields({ ...queueCounts, flavorUsage: flavorUsage, flavors: listOf("open") })
})

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
