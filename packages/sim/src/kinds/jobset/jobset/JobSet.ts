// JobSet (jobset.x-k8s.io/v1alpha2): a group of Jobs run and ended as one.
import { defineKind } from "../../Kind.ts"
import { ageColumn, column, count, field, nameColumn, records, text } from "../../Columns.ts"
import { jobSetFields } from "./JobSetFields.ts"

/** JobSet. */
export const jobSet = defineKind({
  group: "jobset.x-k8s.io",
  versions: ["v1alpha2"],
  kind: "JobSet",
  listKind: "JobSetList",
  plural: "jobsets",
  singular: "jobset",
  shortNames: [],
  namespaced: true,
  hasStatus: true,
  fields: jobSetFields,
  columns: [
    nameColumn,
    column("TerminalState", "string", "Final state of JobSet", (o) => text(field(o, "status", "terminalState"))),
    column("Restarts", "string", "Number of restarts", (o) => (field(o, "status", "restarts") === undefined ? null : String(count(field(o, "status", "restarts"))))),
    column("Completed", "string", "JobSet completed", (o) => text(records(field(o, "status", "conditions")).find((c) => c["type"] === "Completed")?.["status"])),
    column("Suspended", "string", "JobSet suspended", (o) => (field(o, "spec", "suspend") === undefined ? null : String(field(o, "spec", "suspend") === true))),
    ageColumn
  ],
  descriptions: {
  spec: "A group of Jobs run and ended as one.",
  "spec.replicatedJobs": "The Jobs of the set, each template made into that many replicas.",
  "spec.replicatedJobs.name": "The replicated job's name, part of each of its Jobs' names.",
  "spec.replicatedJobs.replicas": "How many Jobs are made from the template.",
  "spec.replicatedJobs.template": "The Job each replica is made from.",
  "spec.suspend": "While true, the set's Jobs are suspended.",
  "spec.network": "DNS for the pods: a headless service so pods reach each other by hostname.",
  "spec.successPolicy": "When the set counts as complete.",
  "spec.failurePolicy": "When the set fails, and how many times it restarts first.",
  status: "How the set is doing, written by the JobSet controller.",
  "status.terminalState": "Completed or Failed once the set has ended.",
  "status.replicatedJobsStatus": "Counts of each replicated job's Jobs, by state.",
  "status.restarts": "How many times the set was restarted."
}
})
