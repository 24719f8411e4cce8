// Kueue's LocalQueue (kueue.x-k8s.io): the namespaced queue jobs name, feeding a ClusterQueue.
import { defineKind } from "../../Kind.ts"
import { ageColumn, column, field, nameColumn, text } from "../../Columns.ts"
import { queueCountColumns } from "../QueueParts.ts"
import { localQueueFields } from "./LocalQueueFields.ts"
import { kueueApi } from "../KueueApi.ts"

/** LocalQueue. */
export const localQueue = defineKind({
  ...kueueApi,
  kind: "LocalQueue",
  listKind: "LocalQueueList",
  plural: "localqueues",
  singular: "localqueue",
  shortNames: ["queue", "queues", "lq"],
  namespaced: true,
  hasStatus: true,
  fields: localQueueFields,
  columns: [nameColumn, column("ClusterQueue", "string", "Backing ClusterQueue", (o) => text(field(o, "spec", "clusterQueue"))), ...queueCountColumns, ageColumn],
  descriptions: {
  spec: "A namespaced queue that jobs name; it feeds a ClusterQueue.",
  "spec.clusterQueue": "The ClusterQueue whose quota this queue's workloads use.",
  "spec.stopPolicy": "Hold or HoldAndDrain stops admitting this queue's workloads.",
  status: "Counts of this queue's workloads, written by Kueue.",
  "status.pendingWorkloads": "Workloads waiting for quota.",
  "status.reservingWorkloads": "Workloads holding quota.",
  "status.admittedWorkloads": "Workloads admitted and running."
}
})
