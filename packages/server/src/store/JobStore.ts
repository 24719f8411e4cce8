import { Result } from "effect"
import { defaultRetryPolicy, formatTimeout, NoBackend, statusOf, step, transition, type InvalidTransition, type StatusChange, wireMetricValue, type InvalidSearch, type AcceptedJob, type JobStatus, type LogRecord, type MetricRecord, type Severity } from "@dispatch/jobs"
import type { JobDispatch, MetricResponse, StoredJob, TrainJobRef } from "../wire/ApiSchemas.ts"
import type { Sql } from "./Database.ts"
import { onStore } from "./DatabaseBridge.ts"
import { jobHistory, logSearchFields, logSortColumns, MetricRow } from "./JobHistory.ts"
import { searchCondition, searchTerms } from "../wire/DioptraPaging.ts"
import { dispatchColumns, dispatchRowOf, stateOf, writeAnswer, type DispatchRow } from "../dispatch/DispatchRow.ts"
import type { NamedJob } from "../wire/JobWire.ts"
import { JobNotControllable } from "../wire/ServiceProblem.ts"

// Every query takes the caller's group and skips deleted jobs: both answer exactly like a missing job.

interface JobRow extends Omit<StoredJob, "timeout" | "mlflowRunId" | "dispatch"> {
  readonly experimentName: string
  readonly entrypointName: string
  readonly queueName: string
  readonly groupId: number
  readonly userId: number | null
  readonly timeout: string | null
  readonly mlflowRunId: string | null
  readonly dispatchState: JobDispatch["state"]
  readonly dispatchReason: string | null
  readonly trainJob: TrainJobRef | null
  readonly lastError: NonNullable<JobDispatch["error"]> | null
  readonly attempts: number
  readonly nextAttemptAt: number | null
  readonly rerunOf: number | null
  readonly gateState: string | null
  readonly gateReason: string | null
  readonly queueHasBackend: boolean
}

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
const jobTables = jobTablesFrom("jobs j")

// A pending job says why it waits: its last error if it has one, else its queue's gate when that is not open.
const waitingReason = (row: JobRow): string | undefined => {
  if (row.dispatchReason !== null) return row.dispatchReason
  if (row.dispatchState !== "pending" || row.status !== "queued") return undefined
  if (!row.queueHasBackend) return new NoBackend({ queue: row.queue }).message
  if (row.gateState === null) return `queue ${row.queue}'s backend has not been proven yet`
  return row.gateState === "open" ? undefined : `queue ${row.queue} is not open (${row.gateState}): ${row.gateReason ?? ""}`
}

const jobOf = (row: JobRow): NamedJob => {
  const { mlflowRunId, dispatchState, dispatchReason: _, trainJob, lastError, attempts, nextAttemptAt, rerunOf, gateState: _s, gateReason: _r, queueHasBackend: _b, ...withNames } = row
  const { experimentName, entrypointName, queueName, groupId, userId, ...rest } = withNames
  const timeoutSeconds = Number(row.timeoutSeconds)
  const reason = waitingReason(row)
  const dispatch: JobDispatch = {
    state: dispatchState,
    attempts: Number(attempts),
    // A job never tried is due at once: it has no retry time to show.
    ...(nextAttemptAt === null || Number(nextAttemptAt) <= 0 ? {} : { nextRetryAt: new Date(Number(nextAttemptAt)).toISOString() }),
    ...(reason === undefined ? {} : { reason }),
    ...(trainJob === null ? {} : { trainJob }),
    ...(lastError === null ? {} : { error: lastError }),
    ...(rerunOf === null ? {} : { rerunOf })
  }
  // A job made before timeouts were kept as given answers its seconds in shorthand.
  const timeout = row.timeout ?? formatTimeout(timeoutSeconds)
  return {
    job: { ...rest, timeoutSeconds, timeout, ...(mlflowRunId === null ? {} : { mlflowRunId }), dispatch },
    names: { experiment: experimentName, entrypoint: entrypointName, queue: queueName, groupId, userId }
  }
}

// A creation is one statement: the job, the first entry of its status history and the job read back with its
// names and queue gate (the joins readJob makes), so creating costs one round trip instead of two.
/** Inserts a new queued job and the first entry of its status history, and answers the job as stored, all in one
 * statement; `rerunOf` names the job it re-runs. */
export const insertJob = async (
  sql: Sql,
  owner: { readonly group: string; readonly user: string; readonly userId?: number },
  job: AcceptedJob,
  at: string,
  rerunOf?: number
): Promise<NamedJob | undefined> => {
  const [row] = await sql.query<JobRow>(
    `with j as (
       insert into jobs (grp, username, experiment, entrypoint, entrypoint_snapshot, queue, parameter_values, artifact_values, swaps,
         timeout_seconds, timeout, description, status, created_on, last_modified_on, rerun_of, user_id)
       values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9::jsonb, $10, $14, $11, 'queued', $12, $12, $13, $15) returning *),
     history as (insert into job_status_history (job, status, changed_on) select id, 'queued', $12 from j)
     select ${jobColumns} from ${jobTablesFrom("j")}`,
    [
      owner.group,
      owner.user,
      job.experiment,
      job.entrypoint,
      job.entrypointSnapshot,
      job.queue,
      JSON.stringify(job.values),
      JSON.stringify(job.artifactValues),
      JSON.stringify(job.swaps),
      job.timeoutSeconds,
      job.description,
      at,
      rerunOf ?? null,
      job.timeout,
      owner.userId ?? null
    ]
  )
  return row === undefined ? undefined : jobOf(row)
}

/** Reads one job of a group; `lock` holds its row until the transaction ends, for read-modify-write. */
export const readJob = async (sql: Sql, group: string, id: number, lock = false): Promise<NamedJob | undefined> => {
  const rows = await sql.query<JobRow>(
    `select ${jobColumns} from ${jobTables} where j.id = $1 and j.grp = $2 and not j.deleted${lock ? " for update of j" : ""}`,
    [id, group]
  )
  return rows[0] === undefined ? undefined : jobOf(rows[0])
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

/** The fields a job list may be searched by (Dioptra's search language), as SQL text. */
export const jobSearchFields = { description: "j.description", status: "j.status", timeout: "j.timeout" } as const

/** What a job list asks for: the group, optionally one experiment, a search (Dioptra's language), the order and the window. */
export interface JobListing {
  readonly group: string
  readonly experiment?: number
  readonly search?: string
  readonly sortBy: keyof typeof jobSortColumns
  readonly descending: boolean
  readonly offset: number
  readonly limit: number
}

/** A filter's SQL and its parameters, with a search's condition (numbered after them) appended, or the search refused. */
const withSearch = (where: string, params: ReadonlyArray<unknown>, search: string | undefined, fields: Readonly<Record<string, string>>) =>
  Result.map(searchCondition(search, fields, params.length + 1), (condition) => ({ where: `${where} and ${condition.where}`, params: [...params, ...condition.params] }))

const listingFilter = (listing: JobListing) =>
  withSearch(
    `j.grp = $1 and not j.deleted${listing.experiment === undefined ? "" : " and j.experiment = $2"}`,
    listing.experiment === undefined ? [listing.group] : [listing.group, listing.experiment],
    listing.search,
    jobSearchFields
  )

/** Lists jobs, one window of them, and the number of all that match; a search that is not Dioptra's language, or
 * names a field jobs are not searched by, is refused. */
export const listJobs = async (
  sql: Sql,
  listing: JobListing
): Promise<Result.Result<{ readonly jobs: ReadonlyArray<NamedJob>; readonly total: number }, InvalidSearch>> => {
  const filter = listingFilter(listing)
  if (Result.isFailure(filter)) return Result.fail(filter.failure)
  const { where, params } = filter.success
  const direction = listing.descending ? "desc" : "asc"
  const rows = await sql.query<JobRow>(
    `select ${jobColumns} from ${jobTables} where ${where} order by ${jobSortColumns[listing.sortBy]} ${direction}, j.id ${direction}
     limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, listing.limit, listing.offset]
  )
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n from jobs j where ${where}`, params)
  return Result.succeed({ jobs: rows.map(jobOf), total: count?.n ?? 0 })
}

/** Every status a job has had, oldest first, with the reason the service gave for it. */
export const statusHistory = async (sql: Sql, id: number): Promise<ReadonlyArray<{ status: JobStatus; changedOn: string; reason?: string }>> =>
  (await onStore(sql, jobHistory, (history) => history.statuses(id))).map(({ reason, ...entry }) => (reason === null ? entry : { ...entry, reason }))

/** Deletes a job as the dispatch machine says: its rows stay, as upstream keeps a deleted job's history, and a job
 * an attempt was made for stays `stopping` (hidden from the API) until Stop left nothing of it on the cluster. A
 * dispatcher's claim is kept, so the stop waits for its Start to end. False when there is no such job. */
export const deleteJob = async (sql: Sql, group: string, id: number, at: string): Promise<boolean> => {
  // Read, decided and written against what was read: a row that moved meanwhile (a dispatcher's answer) is read again.
  for (;;) {
    const [found] = await sql.query<DispatchRow>(`select ${dispatchColumns} from jobs where id = $1 and grp = $2 and not deleted`, [id, group])
    if (found === undefined) return false
    const row = dispatchRowOf(found)
    const answer = step(stateOf(row), { type: "delete" }, { nowMs: Date.parse(at), policy: defaultRetryPolicy, draw: 0 })
    if (answer.refused !== undefined) return false
    if (await writeAnswer(sql, row, answer, at, { claim: "keep", modified: true })) return true
  }
}

/** A status write (Dioptra's `PUT .../status`) as the dispatch machine allows it: a change Dioptra's transitions
 * refuse is `InvalidTransition`; one on a job the service drives on the cluster is `JobNotControllable`. The job's
 * row must be locked by the caller. Answers the job's new status. */
export const writeStatus = async (sql: Sql, id: number, change: StatusChange, at: string): Promise<Result.Result<JobStatus, InvalidTransition | JobNotControllable>> => {
  const [found] = await sql.query<DispatchRow>(`select ${dispatchColumns} from jobs where id = $1`, [id])
  if (found === undefined) return Result.fail(new JobNotControllable({ action: "set the status of", job: id, jobStatus: "deleted", dispatch: "done" }))
  const row = dispatchRowOf(found)
  const next = transition(row.status, change)
  if (Result.isFailure(next)) return next
  const answer = step(stateOf(row), { type: "setStatus", change }, { nowMs: Date.parse(at), policy: defaultRetryPolicy, draw: 0 })
  if (answer.refused !== undefined) return Result.fail(new JobNotControllable({ action: "set the status of", job: id, jobStatus: row.status, dispatch: row.dispatchState }))
  await writeAnswer(sql, row, answer, at, { claim: "keep" })
  return Result.succeed(statusOf(answer.state))
}

/** Appends log records to a job. */
export const insertLogs = (sql: Sql, records: ReadonlyArray<LogRecord>): Promise<void> => onStore(sql, jobHistory, (history) => history.appendLogs(records))

export { logSortColumns }

/** What a log read asks for: the job, a severity filter, an order, a search filter (SQL and its parameters, from
 * the search language) and the window. */
export interface LogListing {
  readonly job: number
  readonly search?: string
  readonly severities?: ReadonlyArray<Severity>
  readonly sortBy?: keyof typeof logSortColumns
  readonly descending: boolean
  readonly offset: number
  readonly limit: number
}

/** One window of a job's log, in the order received unless sorted (ties in the order received), and the number of
 * records that match; a search that is not Dioptra's language, or names another field, is refused. */
export const readLogs = async (sql: Sql, listing: LogListing) => {
  const terms = searchTerms(listing.search, logSearchFields)
  if (Result.isFailure(terms)) return Result.fail(terms.failure)
  const { search: _search, ...window } = listing
  return Result.succeed(await onStore(sql, jobHistory, (history) => history.logs({ ...window, terms: terms.success })))
}

/** A stored metric value as the API answers it. */
export const metricOf = (row: typeof MetricRow.Type): MetricResponse => {
  const { specialValue, ...rest } = row
  const record: MetricRecord = { ...rest, ...(specialValue === null ? {} : { specialValue }) }
  return { job: record.job, name: record.name, step: record.step, value: wireMetricValue(record), timestamp: record.timestamp }
}

/** Stores a posted metric; a re-post at the same (job, name, step) is kept beside the earlier one. */
export const insertMetric = (sql: Sql, metric: MetricRecord): Promise<void> => onStore(sql, jobHistory, (history) => history.appendMetric(metric))

/** The latest of each of a job's metrics, by name: the last value posted at its highest step. */
export const latestMetrics = async (sql: Sql, job: number): Promise<ReadonlyArray<MetricResponse>> =>
  (await onStore(sql, jobHistory, (history) => history.latestMetrics(job))).map(metricOf)

/** One window of every value posted for a metric, by step and then as posted, and the number of values. */
export const metricSnapshots = async (sql: Sql, job: number, name: string, offset: number, limit: number) => {
  const { records, total } = await onStore(sql, jobHistory, (history) => history.metricValues(job, name, offset, limit))
  return { records: records.map(metricOf), total }
}

/** The type and URI of each artifact snapshot a job loads, by artifact id. */
export const artifactsOf = async (sql: Sql, group: string, ids: ReadonlyArray<number>) =>
  new Map(
    (
      await sql.query<{ id: number; artifactType: string; uri: string | null }>(
        `select id, artifact_type as "artifactType", uri from artifacts where grp = $1 and id = any($2::int[])`,
        [group, ids]
      )
    ).map((row) => [row.id, row])
  )

/** The job of the group that already has this MLflow run id, if any: other groups' run ids are not theirs to see. */
export const jobWithMlflowRun = async (sql: Sql, group: string, runId: string): Promise<number | undefined> =>
  (await sql.query<{ id: number }>(`select id from jobs where grp = $1 and mlflow_run_id = $2`, [group, runId]))[0]?.id

/** Records a job's MLflow run id. */
export const updateMlflowRun = async (sql: Sql, id: number, runId: string, at: string): Promise<void> => {
  await sql.query(`update jobs set mlflow_run_id = $2, last_modified_on = $3 where id = $1`, [id, runId, at])
}
