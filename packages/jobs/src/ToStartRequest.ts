import { IMAGE_EXTENSION, RUNTIME_REF_EXTENSION, type StartRequest } from "@dispatch/render"
import { Result, Schema } from "effect"
import { entrypointVersion, type Entrypoint } from "./Entrypoint.ts"
import type { Job } from "./Job.ts"
import { documentEnv, jobDocument, type DocumentTooLarge } from "./JobDocument.ts"
import { refused, type Refused } from "./Problem.ts"
import type { Queue } from "./Queue.ts"
import { NoBackend, NoCommand, NoImage, SnapshotNotFound } from "./ReferenceProblem.ts"
import { renderGraph, type RenderProblem } from "./TaskGraph.ts"
import { ulid, type InvalidUlidSeed, type UlidSeed } from "./Ulid.ts"

/** The env variable carrying the Dioptra job id. */
export const jobIdKey = "DIOPTRA_JOB_ID"

/** The queue or entrypoint given is not the one the job names: a caller's mistake, not the user's. */
export class ResourceMismatch extends Schema.TaggedError<ResourceMismatch>()("ResourceMismatch", {
  resource: Schema.Literals(["queue", "entrypoint"]),
  expected: Schema.Number,
  given: Schema.Number
}) {
  override get message() {
    return `job needs ${this.resource} ${this.expected} but was given ${this.resource} ${this.given}`
  }
  get status() {
    return 500 as const
  }
}

/** Why a stored job cannot become a StartRequest. */
export type StartProblem = ResourceMismatch | SnapshotNotFound | NoBackend | NoImage | NoCommand | RenderProblem | DocumentTooLarge | InvalidUlidSeed

const mismatches = (job: Job, queue: Queue, entrypoint: Entrypoint): Array<ResourceMismatch> => [
  ...(queue.id === job.queue ? [] : [new ResourceMismatch({ resource: "queue", expected: job.queue, given: queue.id })]),
  ...(entrypoint.id === job.entrypoint ? [] : [new ResourceMismatch({ resource: "entrypoint", expected: job.entrypoint, given: entrypoint.id })])
]

/**
 * The first Start of a job: a fresh JobID, submission 1, attempt 0, the entrypoint's image (else the queue's)
 * and command, the values and rendered graph in the environment, the timeout as TimeLimit and the queue's
 * runtime. Start it with the queue's `backend.config`.
 */
export const toStartRequest = (
  job: Job,
  queue: Queue,
  entrypoint: Entrypoint,
  seed: UlidSeed
): Result.Result<StartRequest, Refused<StartProblem>> => {
  const problems: Array<StartProblem> = mismatches(job, queue, entrypoint)
  const version = entrypointVersion(entrypoint, job.entrypointSnapshot)
  if (version === undefined) problems.push(new SnapshotNotFound({ entrypoint: entrypoint.id, snapshot: job.entrypointSnapshot }))
  const backend = queue.backend
  if (backend === undefined) problems.push(new NoBackend({ queue: queue.id }))
  const image = version?.image ?? backend?.image
  if (version !== undefined && backend !== undefined && image === undefined) problems.push(new NoImage({ entrypoint: entrypoint.id, queue: queue.id }))
  const command = version?.command ?? backend?.command
  if (version !== undefined && backend !== undefined && command === undefined) problems.push(new NoCommand({ entrypoint: entrypoint.id, queue: queue.id }))
  const graph = version === undefined ? undefined : renderGraph(version.taskGraph, job.swaps)
  if (graph !== undefined && Result.isFailure(graph)) problems.push(...graph.failure)
  const env = graph !== undefined && Result.isSuccess(graph) ? documentEnv(jobDocument(job, graph.success)) : undefined
  if (env !== undefined && Result.isFailure(env)) problems.push(env.failure)
  const id = ulid(seed)
  if (Result.isFailure(id)) problems.push(id.failure)
  if (problems.length > 0 || version === undefined || backend === undefined || image === undefined || command === undefined || env === undefined || Result.isFailure(env) || Result.isFailure(id)) {
    return Result.fail(refused(problems))
  }
  return Result.succeed({
    job: id.success,
    generation: 0,
    submission: 1,
    attempt: 0,
    spec: {
      name: `dioptra-job-${job.id}`,
      command,
      env: { [jobIdKey]: String(job.id), ...env.success },
      nodes: backend.nodes ?? 1,
      ...(backend.gpusPerNode === undefined ? {} : { gpusPerNode: backend.gpusPerNode }),
      timeLimit: job.timeoutSeconds,
      extensions: {
        [IMAGE_EXTENSION]: { ref: image },
        [RUNTIME_REF_EXTENSION]: { kind: backend.runtime.kind, name: backend.runtime.name }
      }
    }
  })
}
