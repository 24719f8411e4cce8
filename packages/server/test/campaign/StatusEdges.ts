// The one place the campaign says which status changes a job's history may make: the job machine's own
// `allowedEdge` when @dispatch/jobs exports one, else Dioptra's status machine (`allowedChanges`, which status
// sync walks with `stepsToward`) plus the service's own edge: a job that has not ended may fail (a cancel, a
// dispatch refusal).
import * as jobs from "@dispatch/jobs"
import { allowedChanges, type JobStatus } from "@dispatch/jobs"

const statuses: ReadonlySet<string> = new Set(Object.keys(allowedChanges))

/** The status every job's history starts with. */
export const firstStatus: JobStatus = "queued"

/** The edges without a machine of the job's whole life: Dioptra's changes, `reset` back to queued, and failing. */
export const dioptraEdge = (from: JobStatus, to: JobStatus): boolean => {
  const changes = allowedChanges[from]
  if (changes.includes(to)) return true
  if (to === "queued" && changes.includes("reset")) return true
  return to === "failed" && from !== "finished" && from !== "failed"
}

// Looked up rather than imported by name, so the check follows the machine as soon as it exists.
const machineEdge = (jobs as Record<string, unknown>)["allowedEdge"] as ((from: JobStatus, to: JobStatus) => boolean) | undefined

/** Whether a job's history may go from `from` to `to` in one entry. */
export const isEdge = (from: string, to: string): boolean =>
  statuses.has(from) && statuses.has(to) && (machineEdge ?? dioptraEdge)(from as JobStatus, to as JobStatus)
