// The jobs as stored: a job's row with the names its references need and its queue's gate, read, listed, created
// and re-run. Every query takes the caller's group and skips deleted jobs: both answer exactly like a missing job.
import { formatTimeout, Job, JobStatus, NoBackend, SwapsInput, swapSelections, type AcceptedJob, type SearchTerm } from "@dispatch/jobs"
import { Effect, Option, Result, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { JobDispatch } from "../wire/ApiSchemas.ts"
import type { NamedJob } from "../wire/JobWire.ts"
import { StoredNumber } from "./DispatchRows.ts"
import { searchCondition } from "./SearchCondition.ts"
import { decodeRows } from "./UnreadableRow.ts"

// jsonb keeps an object's keys ordered by length (then bytes), and a job has always been answered in that order:
// its TrainJob and last error are read in it, so the answer stays the same byte for byte.
const StoredTrainJobRef = Schema.Struct({ uid: Schema.optionalKey(Schema.String), name: Schema.String, namespace: Schema.String })
const StoredError = Schema.Struct({ ref: Schema.optionalKey(StoredTrainJobRef), error: Schema.String, reasons: Schema.Array(Schema.String) })

/** A job's row as stored, with the names of what it references, its group's and user's ids, and its queue's gate. */
export const JobRow = Schema.Struct({
  id: Schema.Number,
  group: Schema.String,
  user: Schema.String,
  experiment: Schema.Number,
  entrypoint: Schema.Number,
  entrypointSnapshot: Schema.Number,
  queue: Schema.Number,
  values: Job.fields.values,
  artifactValues: Job.fields.artifactValues,
  /** The swaps chosen: the record the service writes, or a list in the REST form clients send (a row written past
   * the API), read as the record it names; the job model judges them against the graph when the job is started. */
  swaps: SwapsInput,
  timeoutSeconds: StoredNumber,
  /** The timeout as given; null for a job made before it was kept. */
  timeout: Schema.NullOr(Schema.String),
  description: Schema.String,
  status: JobStatus,
  createdOn: Schema.String,
  lastModifiedOn: Schema.String,
  artifacts: Schema.Array(Schema.Number),
  mlflowRunId: Schema.NullOr(Schema.String),
  dispatchState: JobDispatch.fields.state,
  dispatchReason: Schema.NullOr(Schema.String),
  trainJob: Schema.NullOr(StoredTrainJobRef),
  lastError: Schema.NullOr(StoredError),
  attempts: StoredNumber,
  nextAttemptAt: Schema.NullOr(StoredNumber),
  rerunOf: Schema.NullOr(Schema.Number),
  gateState: Schema.NullOr(Schema.String),
  gateReason: Schema.NullOr(Schema.String),
  queueHasBackend: Schema.Boolean,
  experimentName: Schema.String,
  entrypointName: Schema.String,
  queueName: Schema.String,
  groupId: Schema.Number,
  userId: Schema.NullOr(Schema.Number)
})
/** A job's row as stored. */
export type JobRow = typeof JobRow.Type

const jobColumns = `j.id, j.grp as "group", j.username as "user", j.experiment, j.entrypoint,
  j.entrypoint_snapshot as "entrypointSnapshot", j.queue, j.parameter_values as "values", j.artifact_values as "artifactValues",
  j.swaps, j.timeout_seconds as "timeoutSeconds", j.timeout, j.description, j.status, j.created_on as "createdOn",
  j.last_modified_on as "lastModifiedOn", j.mlflow_run_id as "mlflowRunId", j.dispatch_state as "dispatchState",
  j.dispatch_reason as "dispatchReason", j.trainjob as "trainJob", j.last_error as "lastError", j.attempts,
  case when j.dispatch_state in ('pending', 'unknown', 'stopping') and j.status <> 'deferred' then j.next_attempt_at end as "nextAttemptAt", j.rerun_of as "rerunOf",
  g.state as "gateState", g.reason as "gateReason", q.backend is not null as "queueHasBackend",
  coalesce((select jsonb_agg(a.id order by a.id) from artifacts a where a.job = j.id), '[]'::jsonb) as artifacts,
  e.name as "experimentName", ep.name as "entrypointName", q.name as "queueName", gr.id as "groupId", j.user_id as "userId"`

// The queue's gate is joined in, so a job waiting on a queue that is not open says why at every read. `jobs` is the
// relation the job rows come from, named `j`: the table, or the rows an INSERT has just returned.
const jobTablesFrom = (jobs: string) => `${jobs} left join queue_gates g on g.queue = j.queue join experiments e on e.id = j.experiment
  join entrypoints ep on ep.id = j.entrypoint join queues q on q.id = j.queue join groups gr on gr.name = j.grp`

// A pending job says why it waits: its last error if it has one, else its queue's gate when that is not open.
const waitingReason = (row: JobRow): string | undefined => {
  if (row.dispatchReason !== null) return row.dispatchReason
  if (row.dispatchState !== "pending" || row.status !== "queued") return undefined
  if (!row.queueHasBackend) return new NoBackend({ queue: row.queue }).message
  if (row.gateState === null) return `queue ${row.queue}'s backend has not been proven yet`
  return row.gateState === "open" ? undefined : `queue ${row.queue} is not open (${row.gateState}): ${row.gateReason ?? ""}`
}

/** The job a stored row holds, and the names its references need. */
export const jobOf = (row: JobRow): NamedJob => {
  const { mlflowRunId, dispatchState, dispatchReason: _, trainJob, lastError, attempts, nextAttemptAt, rerunOf, gateState: _s, gateReason: _r, queueHasBackend: _b, ...withNames } = row
  const { experimentName, entrypointName, queueName, groupId, userId, ...rest } = withNames
  const reason = waitingReason(row)
  const dispatch: JobDispatch = {
    state: dispatchState,
    attempts,
    // A job never tried is due at once: it has no retry time to show.
    ...(nextAttemptAt === null || nextAttemptAt <= 0 ? {} : { nextRetryAt: new Date(nextAttemptAt).toISOString() }),
    ...(reason === undefined ? {} : { reason }),
    ...(trainJob === null ? {} : { trainJob }),
    ...(lastError === null ? {} : { error: lastError }),
    ...(rerunOf === null ? {} : { rerunOf })
  }
  // A job made before timeouts were kept as given answers its seconds in shorthand.
  const timeout = row.timeout ?? formatTimeout(row.timeoutSeconds)
  return {
    job: { ...rest, swaps: Object.fromEntries(swapSelections(row.swaps).map(({ swap, alias }) => [swap, alias])), timeout, ...(mlflowRunId === null ? {} : { mlflowRunId }), dispatch },
    names: { experiment: experimentName, entrypoint: entrypointName, queue: queueName, groupId, userId }
  }
}

/** The columns a job list may be sorted by, by their wire names (upstream's). */
export const jobSortColumns = {
  id: "j.id",
  createdOn: "j.created_on",
  lastModifiedOn: "j.last_modified_on",
  status: "j.status",
  description: "j.description",
  experiment: "e.name",
  entrypoint: "ep.name",
  queue: "q.name"
} as const

// The fields a job list may be searched by (Dioptra's search language), as SQL.
const jobSearchColumns = { description: "j.description", status: "j.status", timeout: "j.timeout" }

/** The fields a job list may be searched by. */
export const jobSearchFields = Object.keys(jobSearchColumns)

/** What a job list asks for: the group, optionally one experiment, a search's terms, the order and the window. */
export interface JobListing {
  readonly group: string
  readonly experiment?: number
  readonly terms: ReadonlyArray<SearchTerm>
  readonly sortBy: keyof typeof jobSortColumns
  readonly descending: boolean
  readonly offset: number
  readonly limit: number
}

/** The owner a new job records: its group and user name, and its user's id when a user logged in. */
export interface JobOwner {
  readonly group: string
  readonly user: string
  readonly userId?: number
}

/** A stored job row that does not decode (written past the API, or by a version that accepted more): its id and why. */
export interface UnreadableJob {
  readonly id: number
  readonly error: Schema.SchemaError
}

/** The type and URI of an artifact a job loads. */
export const ArtifactOfJob = Schema.Struct({ id: Schema.Number, artifactType: Schema.String, uri: Schema.NullOr(Schema.String) })

const Count = Schema.Array(Schema.Struct({ n: Schema.Number }))
const RowId = Schema.Struct({ id: Schema.Number })

/** The jobs' repository over the SqlClient in context. */
export const jobs = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(jobColumns)
  const tables = sql.literal(jobTablesFrom("jobs j"))
  const decodeRow = Schema.decodeUnknownResult(JobRow)
  const decodeId = Schema.decodeUnknownEffect(RowId)
  // One bad row never breaks a list: it is answered as what it is, unreadable, beside the others.
  const listed = (row: unknown): Effect.Effect<Result.Result<NamedJob, UnreadableJob>, Schema.SchemaError> => {
    const decoded = decodeRow(row)
    return Result.isSuccess(decoded)
      ? Effect.succeed(Result.succeed(jobOf(decoded.success)))
      : Effect.map(decodeId(row), ({ id }) => Result.fail({ id, error: decoded.failure }))
  }
  // A job read alone that does not decode cannot be answered: that is the service's defect.
  const first = (row: string) => (rows: ReadonlyArray<unknown>) => Effect.map(decodeRows(JobRow, row)(rows), (decoded) => Option.map(Option.fromNullishOr(decoded[0]), jobOf))
  const withMlflowRun = SqlSchema.findOneOption({
    Request: Schema.Struct({ group: Schema.String, runId: Schema.String }),
    Result: RowId,
    execute: ({ group, runId }) => sql`select id from jobs where grp = ${group} and mlflow_run_id = ${runId}`
  })
  const artifacts = SqlSchema.findAll({
    Request: Schema.Struct({ group: Schema.String, ids: Schema.Array(Schema.Number) }),
    Result: ArtifactOfJob,
    execute: ({ group, ids }) => sql`select id, artifact_type as "artifactType", uri from artifacts where grp = ${group} and id = any(${ids}::int[])`
  })
  return {
    // A creation is one statement: the job, the first entry of its status history and the job read back with its
    // names and queue gate (the joins a read makes), so creating costs one round trip instead of two.
    /** Inserts a new queued job and the first entry of its status history, and answers the job as stored, all in
     * one statement; `rerunOf` names the job it re-runs. None when the job's references are gone. */
    insert: (owner: JobOwner, job: AcceptedJob, at: string, rerunOf?: number) =>
      Effect.flatMap(
          sql`with j as (
             insert into jobs (grp, username, experiment, entrypoint, entrypoint_snapshot, queue, parameter_values, artifact_values, swaps,
               timeout_seconds, timeout, description, status, created_on, last_modified_on, rerun_of, user_id)
             values (${owner.group}, ${owner.user}, ${job.experiment}, ${job.entrypoint}, ${job.entrypointSnapshot}, ${job.queue},
               ${JSON.stringify(job.values)}::jsonb, ${JSON.stringify(job.artifactValues)}::jsonb, ${JSON.stringify(job.swaps)}::jsonb,
               ${job.timeoutSeconds}, ${job.timeout}, ${job.description}, 'queued', ${at}, ${at}, ${rerunOf ?? null}, ${owner.userId ?? null}) returning *),
           history as (insert into job_status_history (job, status, changed_on) select id, 'queued', ${at} from j)
           select ${columns} from ${sql.literal(jobTablesFrom("j"))}`,
        first("the job just created")
      ),
    /** One job of a group; `lock` holds its row until the transaction ends, for read-modify-write. */
    read: (group: string, id: number, lock = false) =>
      Effect.flatMap(
        sql`select ${columns} from ${tables} where j.id = ${id} and j.grp = ${group} and not j.deleted${sql.literal(lock ? " for update of j" : "")}`,
        first(`job ${id}`)
      ),
    /** One window of a group's jobs (of one experiment, if given) matching the search, in the order asked (ties by
     * id), and how many match; a row that does not decode is listed as unreadable. */
    list: (listing: JobListing) => {
      const where = sql.and([
        sql`j.grp = ${listing.group}`,
        sql`not j.deleted`,
        ...(listing.experiment === undefined ? [] : [sql`j.experiment = ${listing.experiment}`]),
        searchCondition(sql, listing.terms, jobSearchColumns)
      ])
      const direction = listing.descending ? "desc" : "asc"
      const order = sql.literal(`${jobSortColumns[listing.sortBy]} ${direction}, j.id ${direction}`)
      return Effect.all({
        jobs: Effect.flatMap(
          sql`select ${columns} from ${tables} where ${where} order by ${order} limit ${listing.limit} offset ${listing.offset}`,
          (rows) => Effect.forEach(rows, listed)
        ),
        total: Effect.map(Effect.flatMap(sql`select count(*)::int as n from jobs j where ${where}`, Schema.decodeUnknownEffect(Count)), (rows) => rows[0]?.n ?? 0)
      })
    },
    /** The type and URI of each artifact of the group among `ids`, by artifact id. */
    artifactsOf: (group: string, ids: ReadonlyArray<number>) =>
      Effect.map(artifacts({ group, ids }), (rows) => new Map(rows.map((row) => [row.id, row] as const))),
    /** The job of the group that already has this MLflow run id, if any: other groups' run ids are not theirs to see. */
    withMlflowRun: (group: string, runId: string) => Effect.map(withMlflowRun({ group, runId }), Option.map((row) => row.id)),
    /** Records a job's MLflow run id. */
    setMlflowRun: (id: number, runId: string, at: string) =>
      Effect.asVoid(sql`update jobs set mlflow_run_id = ${runId}, last_modified_on = ${at} where id = ${id}`)
  }
})

/** The jobs' repository. */
export type Jobs = Effect.Success<typeof jobs>
