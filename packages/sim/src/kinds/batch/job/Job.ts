// batch/v1 Job: pods run to completion.
import { defineKind, fieldAt } from "../../Kind.ts"
import { ageColumn, column, conditionTrue, count, field, nameColumn, time } from "../../Columns.ts"
import { humanDuration } from "@dispatch/kube"
import type { KubeObject } from "../../../Api.ts"
import { jobMessages } from "./JobMessages.ts"
import { podMessages } from "../../core/pod/PodMessages.ts"

const statusText = (job: KubeObject): string =>
  conditionTrue(job, "Failed") ? "Failed" : conditionTrue(job, "Complete") ? "Complete" : conditionTrue(job, "Suspended") ? "Suspended" : "Running"

/** Job. */
export const job = defineKind({
  group: "batch",
  versions: ["v1"],
  kind: "Job",
  listKind: "JobList",
  plural: "jobs",
  singular: "job",
  shortNames: [],
  namespaced: true,
  protobuf: { ...podMessages, ...jobMessages },
  protobufMessage: "batch.v1.Job",
  hasStatus: true,
  // Jobs are selected by `status.successful`: their succeeded count, 0 when there is none.
  selectableFields: { "status.successful": (o) => fieldAt("status.succeeded")(o) || "0" },
  columns: [
    nameColumn,
    column("Status", "string", "Status of the job.", statusText),
    column("Completions", "string", "The completion status of the job.", (o) => `${count(field(o, "status", "succeeded"))}/${count(field(o, "spec", "completions")) || 1}`),
    column("Duration", "string", "Time required to complete the job.", (o, now) => {
      const start = time(field(o, "status", "startTime"))
      if (start === undefined) return null
      return humanDuration((time(field(o, "status", "completionTime")) ?? now) - start)
    }),
    ageColumn
  ]
})
