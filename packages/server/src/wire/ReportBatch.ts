// A job's report batch: many metric values and log records in one request, each with its own step and time, and
// what the reporter had to drop. The batch is the service's own extension beside Dioptra's per-record endpoints,
// whose wire it reuses record for record.
import { LogInput, parseMetricTimestamp, recordMetric, ResourceId, stampLog, Text, type LogRecord, type MetricRecord } from "@dispatch/jobs"
import { Result, Schema } from "effect"
import { MetricInputBody, metricNumber } from "./ApiSchemas.ts"
import type { ServiceProblem } from "./ServiceProblem.ts"

/** How much one batch may carry: records (metrics and log records together) and bytes of its body as sent. */
export const reportBatchLimits = { records: 5_000, bytes: 1024 * 1024 } as const

/** A count of records from 0. */
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** One metric value of a batch: exactly what `POST /jobs/{id}/metrics` takes (its step 0 when absent, its time the
 * service's when absent; NaN and the infinities as "nan", "inf", "-inf"). */
export const BatchMetric = MetricInputBody
/** One metric value of a batch. */
export type BatchMetric = typeof BatchMetric.Type

/** One log record of a batch: as `POST /jobs/{id}/log` takes it, with the time it was logged (the service's time
 * of receipt when absent), as a metric's timestamp is written. */
export const BatchLog = Schema.Struct({ ...LogInput.fields, timestamp: Schema.optionalKey(Text(64)) })
/** One log record of a batch. */
export type BatchLog = typeof BatchLog.Type

/** How many records the reporter dropped (its buffer full) since its last batch that landed. */
export const DroppedCounts = Schema.Struct({ metrics: Schema.optionalKey(Count), logs: Schema.optionalKey(Count) })

/** The body of `POST /jobs/{id}/reports`: metric values, log records and the reporter's drops, each part optional. */
export const ReportBatch = Schema.Struct({
  metrics: Schema.optionalKey(Schema.Array(BatchMetric)),
  logs: Schema.optionalKey(Schema.Array(BatchLog)),
  dropped: Schema.optionalKey(DroppedCounts)
})
/** The body of a report batch. */
export type ReportBatch = typeof ReportBatch.Type

/** What a stored batch answers: how many metric values and log records were stored, and the drops recorded. */
export const ReportBatchResponse = Schema.Struct({
  job: ResourceId,
  metrics: Count,
  logs: Count,
  dropped: Schema.Struct({ metrics: Count, logs: Count })
})
/** What a stored batch answers. */
export type ReportBatchResponse = typeof ReportBatchResponse.Type

/** A batch holds more records than one batch may (413): nothing of it was stored. */
export class TooManyRecords extends Schema.TaggedError<TooManyRecords>()("TooManyRecords", {
  records: Schema.Number,
  limit: Schema.Number
}) {
  override get message() {
    return `the batch holds ${this.records} records (metric values and log records together); at most ${this.limit} are taken in one batch: send them as smaller batches`
  }
  get status() {
    return 413 as const
  }
}

/** One record of a batch is refused (400), so nothing of the batch is stored: which record, and why. */
export class InvalidRecord extends Schema.TaggedError<InvalidRecord>()("InvalidRecord", {
  record: Schema.String,
  problem: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.record}: ${this.reason}`
  }
  get status() {
    return 400 as const
  }
}

/** The logger a batch's drops are recorded under, as a log record of the job. */
export const dropsLogger = "dispatch.report"

/** The log record that says what a reporter dropped, or none when it dropped nothing. */
export const dropsRecord = (job: number, dropped: ReportBatchResponse["dropped"], at: string): ReadonlyArray<LogRecord> =>
  dropped.metrics + dropped.logs === 0
    ? []
    : [
        stampLog(
          job,
          {
            severity: "WARNING",
            loggerName: dropsLogger,
            message: `the job's reporter dropped ${dropped.metrics} metric values and ${dropped.logs} log records: its buffer was full while the service could not be reached`
          },
          at
        )
      ]

/** What a checked batch stores: its metric values and log records (the drops' record last), and its answer. */
export interface CheckedBatch {
  readonly metrics: ReadonlyArray<MetricRecord>
  readonly logs: ReadonlyArray<LogRecord>
  readonly answer: ReportBatchResponse
}

const keptTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

// The number the decimal digits of text[from, to) write (the caller has matched them as digits).
const digitsAt = (text: string, from: number, to: number): number => {
  let n = 0
  for (let i = from; i < to; i++) n = n * 10 + text.charCodeAt(i) - 48
  return n
}

// Days in a month of the proleptic Gregorian calendar, as Date counts them.
const daysIn = (year: number, month: number): number =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31

/** True when a time is written exactly as the service keeps times (`toISOString`: UTC, milliseconds), as reporters
 * write them: it needs no reading, only the check that it names a real instant. */
export const isKeptTime = (text: string): boolean => {
  if (!keptTime.test(text)) return false
  // Its fields checked as numbers (a batch holds thousands of times; making a Date of each costs more than the rest
  // of its record's check): from year 1, as every time the service reads, and no day past its month's end.
  const year = digitsAt(text, 0, 4)
  const month = digitsAt(text, 5, 7)
  const day = digitsAt(text, 8, 10)
  return (
    year >= 1 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysIn(year, month) &&
    digitsAt(text, 11, 13) <= 23 &&
    digitsAt(text, 14, 16) <= 59 &&
    digitsAt(text, 17, 19) <= 59
  )
}

/** Checks a decoded batch for job `job` received at `at`: too many records is one 413; else every bad record is
 * named (each metric as `POST /jobs/{id}/metrics` checks it, each log record's time), and any refuses the whole
 * batch. Pure: the handler stores what it answers. */
export const checkBatch = (job: number, batch: ReportBatch, at: string): Result.Result<CheckedBatch, ReadonlyArray<ServiceProblem>> => {
  const metricsIn = batch.metrics ?? []
  const logsIn = batch.logs ?? []
  const records = metricsIn.length + logsIn.length
  if (records > reportBatchLimits.records) return Result.fail([new TooManyRecords({ records, limit: reportBatchLimits.records })])
  const problems: Array<ServiceProblem> = []
  const metrics: Array<MetricRecord> = []
  metricsIn.forEach((input, i) => {
    // A time already as the service keeps it is taken as the record's time; any other is read (and checked) in full.
    const { name, timestamp } = input
    const step = input.step ?? 0
    const value = metricNumber(input.value)
    const kept = timestamp !== undefined && isKeptTime(timestamp)
    // Two literals rather than a spread of an optional part: this runs for every record of every batch.
    const record = kept || timestamp === undefined ? recordMetric(job, { name, step, value }, kept ? timestamp : at) : recordMetric(job, { name, step, value, timestamp }, at)
    if (Result.isSuccess(record)) metrics.push(record.success)
    else for (const p of record.failure.problems) problems.push(new InvalidRecord({ record: `metrics[${i}]`, problem: p._tag, reason: p.message }))
  })
  const logs: Array<LogRecord> = []
  logsIn.forEach(({ timestamp, ...input }, i) => {
    const logged = timestamp === undefined ? at : isKeptTime(timestamp) ? timestamp : parseMetricTimestamp(timestamp)
    if (logged !== undefined) logs.push(stampLog(job, input, logged))
    else {
      problems.push(
        new InvalidRecord({
          record: `logs[${i}]`,
          problem: "InvalidLogTimestamp",
          reason: `timestamp ${JSON.stringify(timestamp)} is not an ISO-8601 date and time (YYYY-MM-DDTHH:MM[:SS[.fraction]][Z|+HH:MM])`
        })
      )
    }
  })
  if (problems.length > 0) return Result.fail(problems)
  const dropped = { metrics: batch.dropped?.metrics ?? 0, logs: batch.dropped?.logs ?? 0 }
  return Result.succeed({ metrics, logs: [...logs, ...dropsRecord(job, dropped, at)], answer: { job, metrics: metrics.length, logs: logs.length, dropped } })
}
