// Kueue's Workload (kueue.x-k8s.io): a unit of admission, the pods a job needs and the queue it waits in.
import { defineKind } from "../../Kind.ts"
import { ageColumn, column, conditionStatus, field, nameColumn, text } from "../../Columns.ts"
import { withDefaults } from "../../Defaults.ts"
import { isJsonObject } from "../../../apiserver/store/JsonValue.ts"
import { workloadFields } from "./WorkloadFields.ts"
import { checkWorkload } from "./WorkloadRules.ts"
import { kueueApi } from "../KueueApi.ts"

// The CRD's defaults: each pod set's name and count.
const defaults = (object: Record<string, unknown>): Record<string, unknown> => {
  const spec = object["spec"]
  if (!isJsonObject(spec) || !Array.isArray(spec["podSets"])) return object
  return { ...object, spec: { ...spec, podSets: spec["podSets"].map((p) => withDefaults(p, { name: "main", count: 1 })) } }
}

/** Workload. */
export const workload = defineKind({
  ...kueueApi,
  kind: "Workload",
  listKind: "WorkloadList",
  plural: "workloads",
  singular: "workload",
  shortNames: ["kwl", "kueueworkload", "kueueworkloads"],
  namespaced: true,
  hasStatus: true,
  fields: workloadFields,
  strategy: { defaults, validate: checkWorkload },
  columns: [
    nameColumn,
    column("Queue", "string", "The LocalQueue the workload was submitted to.", (o) => text(field(o, "spec", "queueName"))),
    column("Reserved in", "string", "The ClusterQueue where the workload reserves quota.", (o) => text(field(o, "status", "admission", "clusterQueue"))),
    column("Admitted", "string", "Whether the workload is admitted.", (o) => conditionStatus(o, "Admitted")),
    column("Finished", "string", "Whether the workload has finished.", (o) => conditionStatus(o, "Finished")),
    ageColumn
  ],
  descriptions: {
  spec: "A unit of admission in Kueue: the pods a job needs and the queue it waits in.",
  "spec.queueName": "The LocalQueue the workload waits in.",
  "spec.podSets": "The groups of identical pods the job needs, with their counts and templates.",
  "spec.podSets.count": "How many pods of this set.",
  "spec.podSets.name": "The pod set's name.",
  "spec.active": "False deactivates the workload: it is evicted and not admitted again.",
  "spec.priority": "The workload's priority; higher is admitted first.",
  status: "Where the workload is in admission, written by Kueue.",
  "status.admission": "The ClusterQueue and flavors the workload was given quota in.",
  "status.admission.clusterQueue": "The ClusterQueue whose quota the workload holds.",
  "status.admissionChecks": "The state of each admission check the workload must pass.",
  "status.conditions": "QuotaReserved, Admitted, Evicted, Finished and others."
}
})
