// What a job leaves behind as it runs: its status history, its log records and the metric values it posted.
import { JobStatus, LogRecord, SpecialValue, type MetricRecord, type SearchTerm, type Severity } from "@dispatch/jobs"
import { Effect, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { numberArrayLiteral, textArrayLiteral } from "./ArrayLiteral.ts"
import { searchCondition } from "./SearchCondition.ts"

/** One status of a job's history, with the service's reason when it gave one. */
export const HistoryRow = Schema.Struct({ status: JobStatus, changedOn: Schema.String, reason: Schema.NullOr(Schema.String) })

/** One posted metric value as stored. */
export const MetricRow = Schema.Struct({
  job: Schema.Number,
  name: Schema.String,
  step: Schema.Number,
  value: Schema.Number,
  specialValue: Schema.NullOr(SpecialValue),
  timestamp: Schema.String
})

/** One posted metric value as a chart reads it: where it is stored, its step and value. */
export const MetricPoint = Schema.Struct({ id: Schema.Number, step: Schema.Number, value: Schema.Number, specialValue: Schema.NullOr(SpecialValue) })

const Count = Schema.Array(Schema.Struct({ n: Schema.Number }))

// The fields upstream's log search takes, as SQL.
const logSearchColumns = { severity: "severity", message: "message", logger_name: "logger_name" }

/** The fields a job's log can be searched by. */
export const logSearchFields = Object.keys(logSearchColumns)

/** The columns a job's log may be sorted by, by the names a query gives (upstream's snake_case, and camelCase). */
export const logSortColumns = { severity: "severity", logger_name: "logger_name", loggerName: "logger_name", created_on: "logged_on", createdOn: "logged_on" } as const

/** What a log read asks for: the job, a severity filter, a search's terms, an order and the window. */
export interface LogWindow {
  readonly job: number
  readonly terms: ReadonlyArray<SearchTerm>
  readonly severities?: ReadonlyArray<Severity>
  readonly sortBy?: keyof typeof logSortColumns
  readonly descending: boolean
  readonly offset: number
  readonly limit: number
}

/** The job history's repository over the SqlClient in context. */
export const jobHistory = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const metricColumns = sql.literal(`job, name, step, value, special_value as "specialValue", recorded_on as "timestamp"`)
  const count = (statement: Effect.Effect<ReadonlyArray<unknown>, any>) => Effect.map(Effect.flatMap(statement, Schema.decodeUnknownEffect(Count)), (rows) => rows[0]?.n ?? 0)
  return {
    /** Appends a status to a job's history, with the service's reason when it gave one. */
    appendStatus: (job: number, status: JobStatus, at: string, reason: string | null) =>
      Effect.asVoid(sql`insert into job_status_history (job, status, changed_on, reason) values (${job}, ${status}, ${at}, ${reason})`),
    /** Every status a job has had, oldest first. */
    statuses: SqlSchema.findAll({
      Request: Schema.Number,
      Result: HistoryRow,
      execute: (job) => sql`select status, changed_on as "changedOn", reason from job_status_history where job = ${job} order by id`
    }),
    /** Appends log records to a job, one statement each, in order. */
    appendLogs: (records: ReadonlyArray<LogRecord>) =>
      Effect.forEach(
        records,
        (r) => sql`insert into job_logs (job, severity, logger_name, message, logged_on) values (${r.job}, ${r.severity}, ${r.loggerName}, ${r.message}, ${r.createdOn})`,
        { discard: true }
      ),
    /** One window of a job's log, in the order received unless sorted (ties in the order received), and how many
     * records match. */
    logs: (window: LogWindow) => {
      const where = sql.and([
        sql`job = ${window.job}`,
        ...(window.severities === undefined ? [] : [sql`severity = any(${window.severities}::text[])`]),
        searchCondition(sql, window.terms, logSearchColumns)
      ])
      const order = sql.literal(window.sortBy === undefined ? "id" : `${logSortColumns[window.sortBy]} ${window.descending ? "desc" : "asc"}, id`)
      return Effect.all({
        records: Effect.flatMap(
          sql`select job, severity, logger_name as "loggerName", message, logged_on as "createdOn" from job_logs where ${where}
              order by ${order} limit ${window.limit} offset ${window.offset}`,
          Schema.decodeUnknownEffect(Schema.Array(LogRecord))
        ),
        total: count(sql`select count(*)::int as n from job_logs where ${where}`)
      })
    },
    /** Stores a posted metric value; a re-post at the same (job, name, step) is kept beside the earlier one. */
    appendMetric: (metric: MetricRecord) =>
      Effect.asVoid(
        sql`insert into job_metrics (job, name, step, value, special_value, recorded_on)
            values (${metric.job}, ${metric.name}, ${metric.step}, ${metric.value}, ${metric.specialValue ?? null}, ${metric.timestamp})`
      ),
    /** Stores a posted metric value when its job is one of `group`'s and not deleted, in one statement (no read of the
     * job's row first: a post is the commonest request a running job sends); false when there is no such job. */
    appendMetricOfJob: (group: string, metric: MetricRecord) =>
      Effect.map(
        sql`insert into job_metrics (job, name, step, value, special_value, recorded_on)
            select id, ${metric.name}::text, ${metric.step}::float8, ${metric.value}::float8, ${metric.specialValue ?? null}::text, ${metric.timestamp}::timestamptz
            from jobs where id = ${metric.job} and grp = ${group} and not deleted returning 1 as stored`,
        (rows) => rows.length > 0
      ),
    /** The latest of each of a job's metrics, by name: the last value posted at its highest step. */
    latestMetrics: SqlSchema.findAll({
      Request: Schema.Number,
      Result: MetricRow,
      execute: (job) => sql`select distinct on (name) ${metricColumns} from job_metrics where job = ${job} order by name, step desc, id desc`
    }),
    /** One window of every value posted for a metric, by step and then as posted, and how many there are. */
    metricValues: (job: number, name: string, offset: number, limit: number) =>
      Effect.all({
        records: Effect.flatMap(
          sql`select ${metricColumns} from job_metrics where job = ${job} and name = ${name} order by step, id limit ${limit} offset ${offset}`,
          Schema.decodeUnknownEffect(Schema.Array(MetricRow))
        ),
        total: count(sql`select count(*)::int as n from job_metrics where job = ${job} and name = ${name}`)
      }),
    /** Every value posted for a metric as a chart reads it (its id, step and value, no time: a lean read of many
     * rows), by step and then as posted. */
    metricPoints: SqlSchema.findAll({
      Request: Schema.Struct({ job: Schema.Number, name: Schema.String }),
      Result: MetricPoint,
      execute: ({ job, name }) => sql`select id, step, value, special_value as "specialValue" from job_metrics where job = ${job} and name = ${name} order by step, id`
    }),
    /** The posted values with these ids, by step and then as posted. */
    metricValuesWithIds: (ids: ReadonlyArray<number>) =>
      ids.length === 0
        ? Effect.succeed([])
        : Effect.flatMap(sql`select ${metricColumns} from job_metrics where id in ${sql.in(ids)} order by step, id`, Schema.decodeUnknownEffect(Schema.Array(MetricRow)))
  }
})

/** The job history's repository. */
export type JobHistory = Effect.Success<typeof jobHistory>

const jobOfGroup = (sql: SqlClient.SqlClient, group: string, job: number) => sql`select 1 from jobs where id = ${job} and grp = ${group} and not deleted`

/** True when job `job` is one of `group`'s and not deleted (its row is not read). */
export const isJobOf = (group: string, job: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return (yield* jobOfGroup(sql, group, job)).length > 0
  })

// How many values a batch's insert stored.
const StoredCount = Schema.Array(Schema.Struct({ n: Schema.Number }))

/** Stores a report batch's metric values and log records for job `job` when it is one of `group`'s and not deleted
 * (false, and nothing stored, when it is not), each kind in one statement, in the order given (the ids follow it, so
 * re-posts at a step keep their order). The metric values' insert checks the job itself: a batch of metric values
 * alone, the commonest, is one statement. Runs in the caller's transaction. */
export const appendReportBatch = (group: string, job: number, metrics: ReadonlyArray<MetricRecord>, logs: ReadonlyArray<LogRecord>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    if (metrics.length > 0) {
      const numbers = (of: (m: MetricRecord) => number) => numberArrayLiteral(metrics.map(of))
      const texts = (of: (m: MetricRecord) => string | null) => textArrayLiteral(metrics.map(of))
      const [inserted] = yield* sql`with stored as (
          insert into job_metrics (job, name, step, value, special_value, recorded_on)
          select job, name, step, value, special_value, recorded_on
          from unnest(${numbers((m) => m.job)}::int[], ${texts((m) => m.name)}::text[], ${numbers((m) => m.step)}::float8[],
                      ${numbers((m) => m.value)}::float8[], ${texts((m) => m.specialValue ?? null)}::text[], ${texts((m) => m.timestamp)}::timestamptz[])
            with ordinality as u(job, name, step, value, special_value, recorded_on, n)
          where exists (${jobOfGroup(sql, group, job)})
          order by n
          returning 1)
        select count(*)::int as n from stored`.pipe(Effect.flatMap(Schema.decodeUnknownEffect(StoredCount)))
      if ((inserted?.n ?? 0) === 0) return false
    } else if ((yield* jobOfGroup(sql, group, job)).length === 0) return false
    if (logs.length > 0) {
      const texts = (of: (l: LogRecord) => string) => textArrayLiteral(logs.map(of))
      yield* sql`insert into job_logs (job, severity, logger_name, message, logged_on)
        select job, severity, logger_name, message, logged_on
        from unnest(${numberArrayLiteral(logs.map((l) => l.job))}::int[], ${texts((l) => l.severity)}::text[], ${texts((l) => l.loggerName)}::text[],
                    ${texts((l) => l.message)}::text[], ${texts((l) => l.createdOn)}::timestamptz[])
          with ordinality as u(job, severity, logger_name, message, logged_on, n)
        order by n`
    }
    return true
  })
