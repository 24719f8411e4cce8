import { formatTimeout, type AcceptedJob, type JobStatus, type LogRecord, type MetricRecord } from "@dispatch/jobs"
import type { JobResponse } from "./ApiSchemas.ts"
import type { Sql } from "./Database.ts"

// Every query takes the caller's group and skips deleted jobs: both answer exactly like a missing job.

interface JobRow extends Omit<JobResponse, "timeout" | "mlflowRunId" | "artifacts"> {
  readonly mlflowRunId: string | null
}

const jobColumns = `j.id, j.grp as "group", j.username as "user", j.experiment, j.entrypoint,
  j.entrypoint_snapshot as "entrypointSnapshot", j.queue, j.parameter_values as "values", j.artifact_values as "artifactValues",
  j.swaps, j.timeout_seconds as "timeoutSeconds", j.description, j.status, j.created_on as "createdOn",
  j.last_modified_on as "lastModifiedOn", j.mlflow_run_id as "mlflowRunId"`

const jobOf = (row: JobRow): JobResponse => {
  const { mlflowRunId, ...rest } = row
  const timeoutSeconds = Number(row.timeoutSeconds)
  return { ...rest, timeoutSeconds, timeout: formatTimeout(timeoutSeconds), artifacts: [], ...(mlflowRunId === null ? {} : { mlflowRunId }) }
}

/** Inserts a new queued job and the first entry of its status history; returns its id. */
export const insertJob = async (sql: Sql, owner: { readonly group: string; readonly user: string }, job: AcceptedJob, at: string): Promise<number> => {
  const [row] = await sql.query<{ id: number }>(
    `insert into jobs (grp, username, experiment, entrypoint, entrypoint_snapshot, queue, parameter_values, artifact_values, swaps,
       timeout_seconds, description, status, created_on, last_modified_on)
     values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9::jsonb, $10, $11, 'queued', $12, $12) returning id`,
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
      at
    ]
  )
  const id = row?.id ?? 0
  await sql.query(`insert into job_status_history (job, status, changed_on) values ($1, 'queued', $2)`, [id, at])
  return id
}

/** Reads one job of a group; `lock` holds its row until the transaction ends, for read-modify-write. */
export const readJob = async (sql: Sql, group: string, id: number, lock = false): Promise<JobResponse | undefined> => {
  const rows = await sql.query<JobRow>(
    `select ${jobColumns} from jobs j where j.id = $1 and j.grp = $2 and not j.deleted${lock ? " for update" : ""}`,
    [id, group]
  )
  return rows[0] === undefined ? undefined : jobOf(rows[0])
}

/** The columns a job list may be sorted by, by their wire names. */
export const jobSortColumns = { id: "j.id", createdOn: "j.created_on", lastModifiedOn: "j.last_modified_on", status: "j.status", description: "j.description" } as const

/** What a job list asks for: the group, optionally one experiment, a search term, the order and the window. */
export interface JobListing {
  readonly group: string
  readonly experiment?: number
  readonly search?: string
  readonly sortBy: keyof typeof jobSortColumns
  readonly descending: boolean
  readonly offset: number
  readonly limit: number
}

// The search term matches a job whose description contains it (case-insensitively) or whose status it names.
const listingFilter = (listing: JobListing) => {
  const params: Array<unknown> = [listing.group]
  let where = `j.grp = $1 and not j.deleted`
  if (listing.experiment !== undefined) {
    params.push(listing.experiment)
    where += ` and j.experiment = $${params.length}`
  }
  if (listing.search !== undefined && listing.search !== "") {
    params.push(listing.search.toLowerCase())
    where += ` and (position($${params.length} in lower(j.description)) > 0 or j.status = $${params.length})`
  }
  return { where, params }
}

/** Lists jobs, one window of them, and the number of all that match. */
export const listJobs = async (sql: Sql, listing: JobListing): Promise<{ readonly jobs: ReadonlyArray<JobResponse>; readonly total: number }> => {
  const { where, params } = listingFilter(listing)
  const direction = listing.descending ? "desc" : "asc"
  const rows = await sql.query<JobRow>(
    `select ${jobColumns} from jobs j where ${where} order by ${jobSortColumns[listing.sortBy]} ${direction}, j.id ${direction}
     limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, listing.limit, listing.offset]
  )
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n from jobs j where ${where}`, params)
  return { jobs: rows.map(jobOf), total: count?.n ?? 0 }
}

/** Records a job's new status and its time, keeping the old one in the history. */
export const updateJobStatus = async (sql: Sql, id: number, status: JobStatus, at: string): Promise<void> => {
  await sql.query(`update jobs set status = $2, last_modified_on = $3 where id = $1`, [id, status, at])
  await sql.query(`insert into job_status_history (job, status, changed_on) values ($1, $2, $3)`, [id, status, at])
}

/** Every status a job has had, oldest first. */
export const statusHistory = (sql: Sql, id: number) =>
  sql.query<{ status: JobStatus; changedOn: string }>(
    `select status, changed_on as "changedOn" from job_status_history where job = $1 order by id`,
    [id]
  )

/** Marks a job deleted; its rows stay, as upstream keeps a deleted job's history. */
export const deleteJob = async (sql: Sql, group: string, id: number, at: string): Promise<boolean> =>
  (await sql.query(`update jobs set deleted = true, last_modified_on = $3 where id = $1 and grp = $2 and not deleted returning id`, [id, group, at]))
    .length > 0

/** Appends log records to a job. */
export const insertLogs = async (sql: Sql, records: ReadonlyArray<LogRecord>): Promise<void> => {
  for (const r of records) {
    await sql.query(`insert into job_logs (job, severity, logger_name, message, logged_on) values ($1, $2, $3, $4, $5)`, [
      r.job,
      r.severity,
      r.loggerName,
      r.message,
      r.timestamp
    ])
  }
}

/** One window of a job's log, oldest first, and the number of records. */
export const readLogs = async (sql: Sql, job: number, offset: number, limit: number) => {
  const rows = await sql.query<LogRecord>(
    `select job, severity, logger_name as "loggerName", message, logged_on as "timestamp" from job_logs where job = $1 order by id limit $2 offset $3`,
    [job, limit, offset]
  )
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n from job_logs where job = $1`, [job])
  return { records: rows, total: count?.n ?? 0 }
}

interface MetricRow {
  readonly job: number
  readonly name: string
  readonly step: number
  readonly value: number
  readonly specialValue: "nan" | "inf" | "-inf" | null
  readonly timestamp: string
}

const metricOf = (row: MetricRow): MetricRecord => {
  const { specialValue, ...rest } = row
  return { ...rest, step: Number(row.step), value: Number(row.value), ...(specialValue === null ? {} : { specialValue }) }
}

const metricColumns = `job, name, step, value, special_value as "specialValue", recorded_on as "timestamp"`

/** Stores a metric; a re-post of the same (job, name, step) replaces the earlier value. */
export const upsertMetric = async (sql: Sql, metric: MetricRecord): Promise<void> => {
  await sql.query(
    `insert into job_metrics (job, name, step, value, special_value, recorded_on) values ($1, $2, $3, $4, $5, $6)
     on conflict (job, name, step) do update set value = excluded.value, special_value = excluded.special_value, recorded_on = excluded.recorded_on`,
    [metric.job, metric.name, metric.step, metric.value, metric.specialValue ?? null, metric.timestamp]
  )
}

/** The latest step of each of a job's metrics, by name. */
export const latestMetrics = async (sql: Sql, job: number): Promise<ReadonlyArray<MetricRecord>> =>
  (await sql.query<MetricRow>(`select distinct on (name) ${metricColumns} from job_metrics where job = $1 order by name, step desc`, [job])).map(metricOf)

/** One window of a metric's values, by step, and the number of steps recorded. */
export const metricSnapshots = async (sql: Sql, job: number, name: string, offset: number, limit: number) => {
  const rows = await sql.query<MetricRow>(
    `select ${metricColumns} from job_metrics where job = $1 and name = $2 order by step limit $3 offset $4`,
    [job, name, limit, offset]
  )
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n from job_metrics where job = $1 and name = $2`, [job, name])
  return { records: rows.map(metricOf), total: count?.n ?? 0 }
}

/** The job (of any group) that already has this MLflow run id, if any. */
export const jobWithMlflowRun = async (sql: Sql, runId: string): Promise<number | undefined> =>
  (await sql.query<{ id: number }>(`select id from jobs where mlflow_run_id = $1`, [runId]))[0]?.id

/** Records a job's MLflow run id. */
export const updateMlflowRun = async (sql: Sql, id: number, runId: string, at: string): Promise<void> => {
  await sql.query(`update jobs set mlflow_run_id = $2, last_modified_on = $3 where id = $1`, [id, runId, at])
}
