// The one place the campaign says which status changes a job's history may make: the job machine's own
// `allowedEdge` (Dioptra's changes, `reset` back to queued, and the service's own edges), so the check follows
// the machine and never keeps a copy of it.
import { allowedChanges, allowedEdge, type JobStatus } from "@dispatch/jobs"

const statuses: ReadonlySet<string> = new Set(Object.keys(allowedChanges))

/** The status every job's history starts with. */
export const firstStatus: JobStatus = "queued"

/** Whether a job's history may go from `from` to `to` in one entry; a status the service does not know never may. */
export const isEdge = (from: string, to: string): boolean => statuses.has(from) && statuses.has(to) && allowedEdge(from as JobStatus, to as JobStatus)
