import { Result, Schema } from "effect"
import { refused, type Refused } from "./Problem.ts"
import { ResourceId } from "./ResourceId.ts"
import { Text, textLimits } from "./Text.ts"

/** How a non-finite metric value is recorded: NaN, Infinity and -Infinity. */
export const SpecialValue = Schema.Literals(["nan", "inf", "-inf"])
/** How a non-finite metric value is recorded. */
export type SpecialValue = typeof SpecialValue.Type

/** A metric as a job posts it: any double, NaN and the infinities included, and optionally when it was measured
 * (an ISO-8601 date and time, as Python's `datetime.isoformat()` writes it). */
export interface MetricInput {
  readonly name: string
  readonly step: number
  readonly value: number
  readonly timestamp?: string
}

/** A stored metric: a finite value, or 0 with the special value it stands for. */
export const MetricRecord = Schema.Struct({
  job: ResourceId,
  name: Schema.String,
  step: Schema.Int,
  value: Schema.Finite,
  specialValue: Schema.optionalKey(SpecialValue),
  timestamp: Schema.String
})
/** A stored metric. */
export type MetricRecord = typeof MetricRecord.Type

const metricName = /^(?:[A-Z]|[A-Z_][A-Z0-9_]+)$/i

// Stored in an index whose rows PostgreSQL caps at 2704 bytes; names are ASCII, so 255 characters stay far below.
/** A metric name as a request carries it: at most 255 characters, storable as text (its grammar is checked when recorded). */
export const MetricName = Text(textLimits.name)

/** True when a metric name is one letter, or a letter or `_` followed by letters, digits and `_`. */
export const isMetricName = (name: string): boolean => metricName.test(name)

/** A metric name breaks Dioptra's rule. */
export class InvalidMetricName extends Schema.TaggedError<InvalidMetricName>()("InvalidMetricName", {
  metric: Schema.String
}) {
  override get message() {
    return `metric name ${JSON.stringify(this.metric)} must be one letter, or a letter or "_" followed by letters, digits or "_"`
  }
  get status() {
    return 400 as const
  }
}

/** A metric step is not a whole number from 0. */
export class InvalidMetricStep extends Schema.TaggedError<InvalidMetricStep>()("InvalidMetricStep", {
  metric: Schema.String,
  step: Schema.Number
}) {
  override get message() {
    return `metric ${JSON.stringify(this.metric)}: step ${this.step} is not a whole number from 0`
  }
  get status() {
    return 400 as const
  }
}

/** A metric's timestamp is not an ISO-8601 date and time. */
export class InvalidMetricTimestamp extends Schema.TaggedError<InvalidMetricTimestamp>()("InvalidMetricTimestamp", {
  metric: Schema.String,
  timestamp: Schema.String
}) {
  override get message() {
    return `metric ${JSON.stringify(this.metric)}: timestamp ${JSON.stringify(this.timestamp)} is not an ISO-8601 date and time (YYYY-MM-DDTHH:MM[:SS[.fraction]][Z|+HH:MM])`
  }
  get status() {
    return 400 as const
  }
}

const isoDateTime = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/

// Python's fromisoformat, which Dioptra's client checks a timestamp string with, reads a time without a zone as
// naive; the service has no zone of its own to give it, so it is read as UTC.
/** The instant an ISO-8601 date and time names, as `toISOString` writes it (milliseconds, UTC), or undefined when
 * the text is not one or names no real date (February 30th, hour 24). A time without a zone is UTC. */
export const parseMetricTimestamp = (text: string): string | undefined => {
  const match = isoDateTime.exec(text)
  if (match === null) return undefined
  const [, y, mo, d, h, mi, sec = "0", fraction = "", zone = "Z"] = match
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, sec].map(Number) as [number, number, number, number, number, number]
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  if (date.getUTCMonth() !== month - 1) return undefined
  date.setUTCHours(hour, minute, second, Number(fraction.padEnd(3, "0").slice(0, 3)))
  if (zone !== "Z" && zone !== "z") {
    const zoneHours = Number(zone.slice(1, 3))
    const zoneMinutes = zone.length > 3 ? Number(zone.slice(-2)) : 0
    if (zoneHours > 23 || zoneMinutes > 59) return undefined
    date.setTime(date.getTime() - (zone.startsWith("-") ? -1 : 1) * (zoneHours * 60 + zoneMinutes) * 60_000)
  }
  return date.toISOString()
}

const specialOf = (value: number): SpecialValue | undefined =>
  Number.isNaN(value) ? "nan" : value === Infinity ? "inf" : value === -Infinity ? "-inf" : undefined

/** Every reason a posted metric can be refused. */
export type MetricProblem = InvalidMetricName | InvalidMetricStep | InvalidMetricTimestamp

/** Checks a posted metric and records it for its job at the time it names, else at the server's time `at`, naming
 * every problem. */
export const recordMetric = (job: number, input: MetricInput, at: string): Result.Result<MetricRecord, Refused<MetricProblem>> => {
  const problems: Array<MetricProblem> = []
  if (!isMetricName(input.name)) problems.push(new InvalidMetricName({ metric: input.name }))
  if (!Number.isSafeInteger(input.step) || input.step < 0) problems.push(new InvalidMetricStep({ metric: input.name, step: input.step }))
  const timestamp = input.timestamp === undefined ? at : parseMetricTimestamp(input.timestamp)
  if (timestamp === undefined) problems.push(new InvalidMetricTimestamp({ metric: input.name, timestamp: input.timestamp ?? "" }))
  if (problems.length > 0 || timestamp === undefined) return Result.fail(refused(problems))
  const special = specialOf(input.value)
  // Literals, not a spread of a shared base: a report batch records thousands, and a spread costs ten times as much.
  return Result.succeed(
    special === undefined
      ? { job, name: input.name, step: input.step, timestamp, value: input.value }
      : { job, name: input.name, step: input.step, timestamp, value: 0, specialValue: special }
  )
}

const specialNumbers: Readonly<Record<SpecialValue, number>> = { nan: NaN, inf: Infinity, "-inf": -Infinity }

/** The value a metric stands for, NaN and the infinities restored. */
export const metricValue = (record: MetricRecord): number =>
  record.specialValue === undefined ? record.value : specialNumbers[record.specialValue]

/** A metric value as Dioptra's wire carries it: the number, or `"nan"`, `"inf"` or `"-inf"` (JSON has no such numbers). */
export const WireMetricValue = Schema.Union([Schema.Finite, SpecialValue])
/** A metric value as the wire carries it. */
export type WireMetricValue = typeof WireMetricValue.Type

/** A stored metric's value as the wire carries it. */
export const wireMetricValue = (record: MetricRecord): WireMetricValue => record.specialValue ?? record.value

// Upstream overwrites a re-post at the same step, losing the value measured first; every post is history here.
/** Adds a posted metric to a job's metrics, in the order posted; a re-post at the same step is kept beside the earlier one. */
export const postMetric = (metrics: ReadonlyArray<MetricRecord>, record: MetricRecord): ReadonlyArray<MetricRecord> => [...metrics, record]

/** A job's latest metrics, in the order posted: for each name, the last value posted at its highest step. */
export const latestMetrics = (metrics: ReadonlyArray<MetricRecord>): ReadonlyArray<MetricRecord> => {
  const latest = new Map<string, MetricRecord>()
  for (const m of metrics) {
    const key = `${m.job}/${m.name}`
    const held = latest.get(key)
    if (held === undefined || m.step >= held.step) latest.set(key, m)
  }
  return [...latest.values()]
}
