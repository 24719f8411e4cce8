import {
  Artifact,
  ArtifactParameter,
  Description,
  Command,
  ImageRef,
  Job,
  JobStatus,
  LogInput,
  LogRecord,
  MetricName,
  Name,
  ParameterType,
  QueueBackend,
  ResourceId,
  ResourceIdFromPath,
  StatusChange,
  Severity,
  Text,
  textLimits,
  WireMetricValue
} from "@dispatch/jobs"
import { Schema } from "effect"
import { GroupRef, IdRef, ResourceRef } from "./RefTypes.ts"

/** True when a path segment is written as an id is: a decimal from 1, without sign, leading zero, fraction or
 * exponent (it may still be past the stored range, see `parseResourceId`). */
export const isCanonicalId = (text: string): boolean => /^[1-9][0-9]*$/.test(text)

/** A resource id in a URL path: canonical decimal, within the stored range. */
export const IdParam = ResourceIdFromPath

const name = Name
const owned = { group: Schema.String, createdOn: Schema.String }

/** The owning group a Dioptra client names on creation (`group`); the caller's own group when absent. */
const groupField = { group: Schema.optionalKey(ResourceId) }

/** Who made a job or resource: a user who logged in has an id and a URL; a bearer token's principal is named only. */
export const JobUserRef = Schema.Struct({ id: Schema.NullOr(ResourceId), username: Schema.String, url: Schema.NullOr(Schema.String) })

/** What Dioptra answers on every resource besides its own fields: the owner, times and snapshot bookkeeping. */
const dioptraResource = {
  id: ResourceId,
  snapshot: ResourceId,
  group: GroupRef,
  /** Who made it; null for one made before the service recorded it. */
  user: Schema.NullOr(JobUserRef),
  createdOn: Schema.String,
  lastModifiedOn: Schema.String,
  /** When the snapshot answered was made: the last change. */
  snapshotCreatedOn: Schema.String,
  latestSnapshot: Schema.Boolean,
  hasDraft: Schema.Boolean,
  tags: Schema.Array(Schema.Unknown),
  name: Schema.String,
  description: Schema.NullOr(Schema.String)
}

/** The body that registers an experiment (Dioptra's `experiments.create`), with the entrypoints its jobs may run. */
export const ExperimentInput = Schema.Struct({
  ...groupField,
  name,
  description: Schema.optionalKey(Schema.NullOr(Description)),
  entrypoints: Schema.optionalKey(Schema.Array(ResourceId))
})
/** The body that registers an experiment. */
export type ExperimentInput = typeof ExperimentInput.Type

/** The body of `experiments.modify_by_id`: the new name, description and entrypoints (absent ones are cleared). */
export const ExperimentModify = Schema.Struct({
  name,
  description: Schema.optionalKey(Schema.NullOr(Description)),
  entrypoints: Schema.optionalKey(Schema.Array(ResourceId))
})
/** The body of `experiments.modify_by_id`. */
export type ExperimentModify = typeof ExperimentModify.Type

/** The body that registers more entrypoints with an experiment. */
export const EntrypointIds = Schema.Struct({ ids: Schema.Array(ResourceId).check(Schema.isMinLength(1)) })

/** An experiment as Dioptra answers it, its entrypoints as references. */
export const ExperimentResponse = Schema.Struct({ ...dioptraResource, entrypoints: Schema.Array(ResourceRef) })
/** An experiment as the service answers it. */
export type ExperimentResponse = typeof ExperimentResponse.Type

/** A parameter as a client declares it: Dioptra's `parameterType`, or dispatch's `type`. */
export const ParameterInput = Schema.Struct({
  name: Name,
  parameterType: Schema.optionalKey(ParameterType),
  type: Schema.optionalKey(ParameterType),
  defaultValue: Schema.optionalKey(Schema.NullOr(Description))
}).check(
  Schema.makeFilter((p) => (p.parameterType === undefined && p.type === undefined ? "needs parameterType" : p.parameterType !== undefined && p.type !== undefined && p.parameterType !== p.type ? "parameterType and type differ" : undefined))
)

/** The body that registers an entrypoint (Dioptra's `entrypoints.create`): the task graph as a YAML string (or
 * an object), parameters, artifact parameters, queues, plugins; dispatch's `image` and `command` are optional. */
export const EntrypointInput = Schema.Struct({
  ...groupField,
  name,
  description: Schema.optionalKey(Schema.NullOr(Description)),
  taskGraph: Schema.Union([Description, Schema.Record(Schema.String, Schema.Unknown)]),
  artifactGraph: Schema.optionalKey(Schema.NullOr(Schema.String)),
  parameters: Schema.optionalKey(Schema.Array(ParameterInput)),
  artifactParameters: Schema.optionalKey(Schema.Array(ArtifactParameter)),
  queues: Schema.optionalKey(Schema.Array(ResourceId)),
  plugins: Schema.optionalKey(Schema.Array(ResourceId)),
  artifactPlugins: Schema.optionalKey(Schema.Array(ResourceId)),
  image: Schema.optionalKey(ImageRef),
  command: Schema.optionalKey(Command)
})
/** The body that registers an entrypoint. */
export type EntrypointInput = typeof EntrypointInput.Type

/** The body of `entrypoints.modify_by_id`: everything again but the group; it adds a snapshot. */
export const EntrypointModify = EntrypointInput.mapFields(({ group: _, ...fields }) => fields)
/** The body of `entrypoints.modify_by_id`. */
export type EntrypointModify = typeof EntrypointModify.Type

/** A parameter as Dioptra answers it. */
export const ParameterResponse = Schema.Struct({ name: Schema.String, parameterType: ParameterType, defaultValue: Schema.NullOr(Schema.String) })

/** Where a resource's snapshots are listed, a page at a time, and how many it keeps. */
export const SnapshotsLink = Schema.Struct({ url: Schema.String, count: Schema.Int })

/** An entrypoint as Dioptra answers it (one snapshot: the task graph as YAML, queues as references), with
 * dispatch's `image`, `command` and the link to its snapshots. */
export const EntrypointResponse = Schema.Struct({
  ...dioptraResource,
  taskGraph: Schema.String,
  artifactGraph: Schema.String,
  parameters: Schema.Array(ParameterResponse),
  artifactParameters: Schema.Array(ArtifactParameter),
  queues: Schema.Array(ResourceRef),
  plugins: Schema.Array(Schema.Unknown),
  artifactPlugins: Schema.Array(Schema.Unknown),
  image: Schema.optionalKey(Schema.String),
  command: Schema.optionalKey(Schema.Array(Schema.String)),
  snapshots: SnapshotsLink
})
/** An entrypoint as the service answers it. */
export type EntrypointResponse = typeof EntrypointResponse.Type

/** The body that registers a queue (Dioptra's `queues.create`); dispatch's `backend` is optional: a queue without
 * one keeps its jobs waiting until it gets one (or the service's `--default-backend`). */
export const QueueInput = Schema.Struct({ ...groupField, name, description: Schema.optionalKey(Schema.NullOr(Description)), backend: Schema.optionalKey(QueueBackend) })
/** The body that registers a queue. */
export type QueueInput = typeof QueueInput.Type

/** The body of `queues.modify_by_id`; an absent `backend` keeps the queue's backend. */
export const QueueModify = QueueInput.mapFields(({ group: _, ...fields }) => fields)
/** The body of `queues.modify_by_id`. */
export type QueueModify = typeof QueueModify.Type

/** What a queue's Factory proved about its backend: open, or the first gate not proven and why; unproven until it
 * ran (or while the queue has no backend); proving while its probe runs (and why that may take long). */
export const QueueGate = Schema.Struct({
  state: Schema.Literals(["open", "closed", "read-only", "observe-only", "unproven", "proving"]),
  reason: Schema.optionalKey(Schema.String),
  checkedOn: Schema.optionalKey(Schema.String)
})
/** What a queue's Factory proved. */
export type QueueGate = typeof QueueGate.Type

/** A queue as Dioptra answers it, with dispatch's backend (absent until given) and gate. */
export const QueueResponse = Schema.Struct({ ...dioptraResource, backend: Schema.optionalKey(QueueBackend), gate: QueueGate })
/** A queue as the service answers it. */
export type QueueResponse = typeof QueueResponse.Type

/** The body that registers an artifact (with its first snapshot). */
export const ArtifactInput = Schema.Struct({ artifactType: Name })

/** An artifact as the service answers it. */
export const ArtifactResponse = Schema.Struct({
  ...Artifact.fields,
  ...owned,
  /** Where a job's artifact is (`experiments.jobs.create_artifact`). */
  uri: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String)
})
/** An artifact as the service answers it. */
export type ArtifactResponse = typeof ArtifactResponse.Type

/** Where a job's TrainJob lives: `<namespace>/<name>` and its UID. */
export const TrainJobRef = Schema.Struct({ namespace: Schema.String, name: Schema.String, uid: Schema.optionalKey(Schema.String) })
/** Where a job's TrainJob lives. */
export type TrainJobRef = typeof TrainJobRef.Type

/** How far the service has taken a job to the cluster (see docs/jobs.md, "Jobs on the cluster"). */
export const JobDispatch = Schema.Struct({
  /** pending, claimed, starting, unknown, owned, opened, held, stopping or done (see docs/jobs.md). */
  state: Schema.Literals(["pending", "claimed", "starting", "unknown", "owned", "opened", "held", "stopping", "done"]),
  /** Why the job waits or ended as it did: a gate not proven, the last error, a cancel. */
  reason: Schema.optionalKey(Schema.String),
  /** The TrainJob, once Start has made it. */
  trainJob: Schema.optionalKey(TrainJobRef),
  /** The last typed error of a dispatch attempt (`ErrUnreachable`, ...), with every reason; cleared once opened. */
  error: Schema.optionalKey(Schema.Struct({ error: Schema.String, reasons: Schema.Array(Schema.String), ref: Schema.optionalKey(TrainJobRef) })),
  /** How many times a dispatcher has claimed the job. */
  attempts: Schema.Number,
  /** When the service comes back to the job by itself: its next attempt, the end of an unanswered create's bound,
   * or its next Stop (ISO-8601). */
  nextRetryAt: Schema.optionalKey(Schema.String),
  /** The job this one re-runs. */
  rerunOf: Schema.optionalKey(ResourceId)
})
/** How far the service has taken a job to the cluster. */
export type JobDispatch = typeof JobDispatch.Type

/** A job as the service keeps it: the job model plus the group and user that made it and its dispatch. */
export const StoredJob = Schema.Struct({ ...Job.fields, group: Schema.String, user: Schema.String, dispatch: JobDispatch })
/** A job as the service keeps it. */
export type StoredJob = typeof StoredJob.Type


/** The entrypoint a job runs, with the snapshot it runs (Dioptra's entrypoint snapshot reference). */
export const EntrypointSnapshotRef = Schema.Struct({ ...ResourceRef.fields, snapshotId: ResourceId })

/** A job as the service answers it, in Dioptra's shape: references `{id, name, group, url}` to its experiment,
 * entrypoint (with `snapshotId`) and queue, its group and user, the artifacts it produced, createdOn and
 * lastModifiedOn; plus ours: `swaps`, `timeoutSeconds`, `entrypointSnapshot` and `dispatch`. */
export const JobResponse = Schema.Struct({
  id: ResourceId,
  description: Schema.NullOr(Schema.String),
  status: JobStatus,
  values: Job.fields.values,
  artifactValues: Job.fields.artifactValues,
  swaps: Job.fields.swaps,
  timeout: Schema.String,
  timeoutSeconds: Job.fields.timeoutSeconds,
  experiment: ResourceRef,
  entrypoint: EntrypointSnapshotRef,
  entrypointSnapshot: ResourceId,
  queue: ResourceRef,
  group: GroupRef,
  user: JobUserRef,
  createdOn: Schema.String,
  lastModifiedOn: Schema.String,
  /** Upstream's bookkeeping: a job is never edited, so it is its own one snapshot, made when it was created. */
  snapshot: ResourceId,
  snapshotCreatedOn: Schema.String,
  latestSnapshot: Schema.Boolean,
  hasDraft: Schema.Boolean,
  artifacts: Schema.Array(IdRef),
  tags: Schema.Array(Schema.Unknown),
  mlflowRunId: Schema.optionalKey(Schema.String),
  dispatch: JobDispatch
})
/** A job as the service answers it. */
export type JobResponse = typeof JobResponse.Type

/** The body of a status change. */
export const StatusInput = Schema.Struct({ status: StatusChange })

/** One kept status of a job and when it was entered. */
export const StatusHistoryEntry = Schema.Struct({ status: JobStatus, changedOn: Schema.String, reason: Schema.optionalKey(Schema.String) })

/** A job's status and every status it has had, oldest first. */
export const StatusResponse = Schema.Struct({ id: ResourceId, status: JobStatus, history: Schema.Array(StatusHistoryEntry) })
/** A job's status and its history. */
export type StatusResponse = typeof StatusResponse.Type

/** The body that appends log records to a job: Dioptra's `{data: [...]}`. */
export const LogsInput = Schema.Struct({ data: Schema.Array(LogInput).check(Schema.isMinLength(1), Schema.isMaxLength(1000)) })

/** A severity filter in a query string: one severity, or several as the parameter repeated (`?severity=ERROR&severity=INFO`). */
export const SeverityFilter = Schema.Union([Severity, Schema.Array(Severity).check(Schema.isMinLength(1), Schema.isMaxLength(5))])

/** Log records as the service answers them. */
export const LogsResponse = Schema.Array(LogRecord)

// JSON has no NaN or infinities, so a non-finite value travels as one of these strings.
/** A metric value on the wire: a number, or NaN / Infinity / -Infinity spelt as a string. */
export const MetricValue = Schema.Union([Schema.Finite, Schema.Literals(["nan", "inf", "-inf", "NaN", "Infinity", "-Infinity"])])

/** The body that records a metric of a job at a step (0 when absent), measured at `timestamp` (ISO 8601; the
 * server's time when absent). */
export const MetricInputBody = Schema.Struct({
  name: MetricName,
  value: MetricValue,
  step: Schema.optionalKey(Schema.Number),
  timestamp: Schema.optionalKey(Text(64))
})
/** The body that records a metric. */
export type MetricInputBody = typeof MetricInputBody.Type

/** The number a wire metric value stands for. */
export const metricNumber = (value: typeof MetricValue.Type): number => {
  switch (value) {
    case "nan":
    case "NaN":
      return NaN
    case "inf":
    case "Infinity":
      return Infinity
    case "-inf":
    case "-Infinity":
      return -Infinity
    default:
      return value
  }
}

/** A stored metric as the service answers it: its value a number, or `"nan"`, `"inf"` or `"-inf"`. */
export const MetricResponse = Schema.Struct({ job: ResourceId, name: Schema.String, step: Schema.Int, value: WireMetricValue, timestamp: Schema.String })
/** A stored metric as the service answers it. */
export type MetricResponse = typeof MetricResponse.Type

/** The latest step of each of a job's metrics. */
export const MetricsResponse = Schema.Array(MetricResponse)

/** A job's parameter values by name, typed as the entrypoint's parameters coerce them (Dioptra's `/jobs/{id}/parameters`). */
export const JobParametersResponse = Schema.Record(Schema.String, Schema.Json)

/** One artifact a job loads, by artifact parameter name (Dioptra's `/jobs/{id}/artifactParameters`). */
export const JobArtifactParameter = Schema.Struct({
  artifact_id: ResourceId,
  artifact_snapshot_id: ResourceId,
  artifact_type: Schema.String,
  artifact_uri: Schema.NullOr(Schema.String)
})

/** A job's artifact inputs by artifact parameter name. */
export const JobArtifactParametersResponse = Schema.Record(Schema.String, JobArtifactParameter)

/** The body that registers an artifact a job produced (`experiments.jobs.create_artifact`); `artifactType` is ours
 * and defaults to `artifact`. */
export const JobArtifactInput = Schema.Struct({
  uri: Text(textLimits.text),
  description: Schema.optionalKey(Description),
  artifactType: Schema.optionalKey(Name)
})

/** The body that sets a job's MLflow run id: a UUID, dashed or as MLflow's 32 hex digits. */
export const MlflowRunInput = Schema.Struct({ mlflowRunId: Text(textLimits.name) })

/** A job's MLflow run id (dashed, lower case), null until set. */
export const MlflowRunResponse = Schema.Struct({ mlflowRunId: Schema.NullOr(Schema.String) })

/** The answer to a deletion. */
export const DeletedResponse = Schema.Struct({ status: Schema.Literal("Success"), id: Schema.Array(ResourceId) })
