// A stored job in Dioptra's shape: the ids it keeps become references, made for the request that asks.
import type { JobResponse, StoredJob } from "./ApiSchemas.ts"
import { refMaker } from "./RefTypes.ts"

/** What a job's references need besides its ids: the names of its experiment, entrypoint and queue, its group's
 * id and its user's id (none for a bearer token's principal). */
export interface JobNames {
  readonly experiment: string
  readonly entrypoint: string
  readonly queue: string
  readonly groupId: number
  readonly userId: number | null
}

/** A stored job and the names its references need. */
export interface NamedJob {
  readonly job: StoredJob
  readonly names: JobNames
}

/** A stored job as the wire answers it; `link` makes the absolute URL of an API path. */
export const jobWire = ({ job, names }: NamedJob, link: (path: string) => string): JobResponse => {
  const refs = refMaker(link)
  const group = refs.group(names.groupId, job.group)
  return {
    id: job.id,
    // Upstream answers null for a job made without a description, as for every other resource.
    description: job.description === "" ? null : job.description,
    status: job.status,
    values: job.values,
    artifactValues: job.artifactValues,
    swaps: job.swaps,
    timeout: job.timeout,
    timeoutSeconds: job.timeoutSeconds,
    experiment: refs.resource("experiment", job.experiment, names.experiment, group),
    entrypoint: { ...refs.resource("entrypoint", job.entrypoint, names.entrypoint, group), snapshotId: job.entrypointSnapshot },
    entrypointSnapshot: job.entrypointSnapshot,
    queue: refs.resource("queue", job.queue, names.queue, group),
    group,
    user: names.userId === null ? { id: null, username: job.user, url: null } : refs.user(names.userId, job.user),
    createdOn: job.createdOn,
    lastModifiedOn: job.lastModifiedOn,
    snapshot: job.id,
    snapshotCreatedOn: job.createdOn,
    latestSnapshot: true,
    hasDraft: false,
    artifacts: job.artifacts.map((id) => refs.byId("artifact", id, group)),
    tags: [],
    ...(job.mlflowRunId === undefined ? {} : { mlflowRunId: job.mlflowRunId }),
    dispatch: job.dispatch
  }
}
