import { Result, Schema } from "effect"
import { refused, type Refused } from "./Problem.ts"
import { ResourceId } from "./ResourceId.ts"
import { Text, textLimits } from "./Text.ts"

/** How a non-finite metric value is recorded: NaN, Infinity and -Infinity. */
export const SpecialValue = Schema.Literals(["nan", "inf", "-inf"])
/** How a non-finite metric value is recorded. */
export type SpecialValue = typeof SpecialValue.Type

/** A metric as a job posts it: any double, NaN and the infinities included. */
export interface MetricInput {
  readonly name: string
  readonly step: number
  readonly value: number
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

const specialOf = (value: number): SpecialValue | undefined =>
  Number.isNaN(value) ? "nan" : value === Infinity ? "inf" : value === -Infinity ? "-inf" : undefined

/** Checks a posted metric and records it for its job at the server's time, naming every problem. */
export const recordMetric = (
  job: number,
  input: MetricInput,
  at: string
): Result.Result<MetricRecord, Refused<InvalidMetricName | InvalidMetricStep>> => {
  const problems: Array<InvalidMetricName | InvalidMetricStep> = []
  if (!isMetricName(input.name)) problems.push(new InvalidMetricName({ metric: input.name }))
  if (!Number.isSafeInteger(input.step) || input.step < 0) problems.push(new InvalidMetricStep({ metric: input.name, step: input.step }))
  if (problems.length > 0) return Result.fail(refused(problems))
  const special = specialOf(input.value)
  const base = { job, name: input.name, step: input.step, timestamp: at }
  return Result.succeed(special === undefined ? { ...base, value: input.value } : { ...base, value: 0, specialValue: special })
}

const specialNumbers: Readonly<Record<SpecialValue, number>> = { nan: NaN, inf: Infinity, "-inf": -Infinity }

/** The value a metric stands for, NaN and the infinities restored. */
export const metricValue = (record: MetricRecord): number =>
  record.specialValue === undefined ? record.value : specialNumbers[record.specialValue]

const sameKey = (a: MetricRecord, b: MetricRecord): boolean => a.job === b.job && a.name === b.name && a.step === b.step

/** Adds a metric to a job's metrics; a re-post of the same (job, name, step) replaces the earlier one in place. */
export const postMetric = (metrics: ReadonlyArray<MetricRecord>, record: MetricRecord): ReadonlyArray<MetricRecord> =>
  metrics.some((m) => sameKey(m, record)) ? metrics.map((m) => (sameKey(m, record) ? record : m)) : [...metrics, record]
