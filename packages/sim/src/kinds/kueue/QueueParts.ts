// The parts of the status (and the fair sharing spec) Kueue's two queues, LocalQueue and ClusterQueue,
// share: each queue's tree is the union of v1beta1's and v1beta2's fields (one stored form serves both).
import { condition } from "../core/CoreFields.ts"
import { fields, listOf } from "../../apiserver/validation/FieldTree.ts"
import { type Column, column, count, field } from "../Columns.ts"

/** Per flavor, the quantity of each resource in use (or reserved) and how much of it is borrowed. */
export const flavorUsage = listOf(fields({ name: "string", resources: listOf(fields({ borrowed: "quantity", name: "string", total: "quantity" })) }))

/** A queue's fair sharing weight. */
export const fairSharing = fields({ weight: "quantity" })

/** The workload counts and conditions both queues report. */
export const queueCounts = {
  admittedWorkloads: "integer",
  conditions: listOf(condition),
  fairSharing: "open",
  pendingWorkloads: "integer",
  reservingWorkloads: "integer",
  flavorsReservation: flavorUsage
} as const


/** The workload count columns both queues print. */
export const queueCountColumns: ReadonlyArray<Column> = [
  column("Pending Workloads", "integer", "Number of pending workloads", (o) => count(field(o, "status", "pendingWorkloads"))),
  column("Admitted Workloads", "integer", "Number of admitted workloads that haven't finished yet.", (o) => count(field(o, "status", "admittedWorkloads")))
]
