import { Result, Schema } from "effect"
import { ArtifactRef } from "./Artifact.ts"
import type { AcceptedJob } from "./CreateJob.ts"
import { JobStatus, transition, type InvalidTransition, type StatusChange } from "./JobStatus.ts"
import { ResourceId } from "./ResourceId.ts"

/** A job as Dioptra records it: what it runs with, and the state the system manages. */
export const Job = Schema.Struct({
  id: ResourceId,
  experiment: ResourceId,
  entrypoint: ResourceId,
  entrypointSnapshot: ResourceId,
  queue: ResourceId,
  values: Schema.Record(Schema.String, Schema.Json),
  artifactValues: Schema.Record(Schema.String, ArtifactRef),
  swaps: Schema.Record(Schema.String, Schema.String),
  timeoutSeconds: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  /** The timeout as it was given at creation, echoed unchanged. */
  timeout: Schema.String,
  description: Schema.String,
  status: JobStatus,
  createdOn: Schema.String,
  lastModifiedOn: Schema.String,
  artifacts: Schema.Array(ResourceId),
  mlflowRunId: Schema.optionalKey(Schema.String)
})
/** A job as Dioptra records it. */
export type Job = typeof Job.Type

/** A new, queued job from an accepted request; the id and the time come from the caller. */
export const newJob = (accepted: AcceptedJob, id: number, at: string): Job => ({
  ...accepted,
  id,
  status: "queued",
  createdOn: at,
  lastModifiedOn: at,
  artifacts: []
})

/** Applies a status change to a job, stamping the time, or refuses it. */
export const changeStatus = (job: Job, change: StatusChange, at: string): Result.Result<Job, InvalidTransition> =>
  Result.map(transition(job.status, change), (status) => ({ ...job, status, lastModifiedOn: at }))

// MLflow itself writes run ids as 32 hex digits (`uuid4().hex`); Python's `str(uuid)` writes them dashed.
const uuid = /^([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})$/i

/** The canonical form of an MLflow run id: a UUID given dashed or as MLflow's 32 hex digits, in any case, written
 * dashed in lower case; undefined when it is neither (dashes must be all present or all absent). */
export const canonicalMlflowRunId = (runId: string): string | undefined => {
  const match = uuid.exec(runId)
  if (match === null) return undefined
  const dashes = (runId.match(/-/g) ?? []).length
  return dashes === 0 || dashes === 4 ? match.slice(1).join("-").toLowerCase() : undefined
}

/** The MLflow run id is not a UUID. */
export class InvalidMlflowRunId extends Schema.TaggedError<InvalidMlflowRunId>()("InvalidMlflowRunId", {
  runId: Schema.String
}) {
  override get message() {
    return `MLflow run id ${JSON.stringify(this.runId)} is not a UUID (32 hex digits, with or without the four dashes)`
  }
  get status() {
    return 400 as const
  }
}

/** The job already has an MLflow run id; it is set once. */
export class MlflowRunIdAlreadySet extends Schema.TaggedError<MlflowRunIdAlreadySet>()("MlflowRunIdAlreadySet", {
  job: Schema.Number,
  current: Schema.String
}) {
  override get message() {
    return `job ${this.job} already has MLflow run id ${this.current}`
  }
  get status() {
    return 400 as const
  }
}

// Uniqueness across jobs needs every job, so the service that stores them checks it.
/** Sets a job's MLflow run id, which must be a UUID and may be set only once; it is kept in canonical form. */
export const setMlflowRunId = (
  job: Job,
  runId: string,
  at: string
): Result.Result<Job, InvalidMlflowRunId | MlflowRunIdAlreadySet> => {
  if (job.mlflowRunId !== undefined) return Result.fail(new MlflowRunIdAlreadySet({ job: job.id, current: job.mlflowRunId }))
  const canonical = canonicalMlflowRunId(runId)
  if (canonical === undefined) return Result.fail(new InvalidMlflowRunId({ runId }))
  return Result.succeed({ ...job, mlflowRunId: canonical, lastModifiedOn: at })
}
