// The one place the campaign says which status changes a job's history may make. Today that is Dioptra's status
// machine (`allowedChanges`, which status sync walks with `stepsToward`) plus the service's own edge: a job that
// is not finished may fail (a cancel, a dispatch refusal). When the job's life becomes one state machine, this
// module asks that machine instead.
import { allowedChanges, type JobStatus } from "@dispatch/jobs"

const statuses: ReadonlySet<string> = new Set(Object.keys(allowedChanges))

/** The status every job's history starts with. */
export const firstStatus: JobStatus = "queued"

/** Whether a job's history may go from `from` to `to` in one entry. */
export const isEdge = (from: string, to: string): boolean => {
  if (!statuses.has(from) || !statuses.has(to)) return false
  const changes = allowedChanges[from as JobStatus]
  if (changes.includes(to as JobStatus)) return true
  // `reset` puts a job back to queued.
  if (to === "queued" && changes.includes("reset")) return true
  return to === "failed" && from !== "finished" && from !== "failed"
}
