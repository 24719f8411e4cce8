// Kueue's ClusterQueue (kueue.x-k8s.io): a cluster-wide pool of quota.
import { defineKind } from "../../Kind.ts"
import { ageColumn, column, field, nameColumn, text } from "../../Columns.ts"
import { queueCountColumns } from "../QueueParts.ts"
import { clusterQueueFields } from "./ClusterQueueFields.ts"
import { kueueApi } from "../KueueApi.ts"

/** ClusterQueue. */
export const clusterQueue = defineKind({
  ...kueueApi,
  kind: "ClusterQueue",
  listKind: "ClusterQueueList",
  plural: "clusterqueues",
  singular: "clusterqueue",
  shortNames: ["cq"],
  namespaced: false,
  hasStatus: true,
  fields: clusterQueueFields,
  columns: [
    nameColumn,
    column("Cohort", "string", "Cohort that this ClusterQueue belongs to", (o) => text(field(o, "spec", "cohort")) ?? text(field(o, "spec", "cohortName"))),
    ...queueCountColumns,
    ageColumn
  ],
  descriptions: {
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
})
