// A buffered record and its form on the wire of POST /jobs/{id}/reports, and the checks that keep a record the
// service would refuse out of a batch (one bad record refuses the whole batch there): a metric's name and step as
// the service takes them, text it can store, a level it knows.

/** A metric value, measured at `at` (milliseconds since the epoch). */
export interface MetricRecord {
  readonly kind: "metric"
  readonly name: string
  readonly value: number
  readonly step: number
  readonly at: number
}

/** A log line, logged at `at` (milliseconds since the epoch). */
export interface LogRecord {
  readonly kind: "log"
  readonly severity: Severity
  readonly loggerName: string
  readonly message: string
  readonly at: number
}

/** A record waiting to be sent. */
export type BufferedRecord = MetricRecord | LogRecord

/** The levels the service stores. */
export const severities = ["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] as const

/** A level the service stores. */
export type Severity = (typeof severities)[number]

/** The longest metric or logger name the service takes. */
export const maxName = 255
/** The longest message kept: the service takes 64 KiB of UTF-8, which 16,384 characters always fit. */
export const maxMessage = 16_384
/** The largest step: JSON's largest exact integer. */
export const maxStep = Number.MAX_SAFE_INTEGER

const metricName = /^(?:[A-Za-z][A-Za-z0-9_]*|_[A-Za-z0-9_]+)$/

/** Whether the service takes `name` as a metric's name: one letter, or a letter or "_" followed by letters, digits or "_", at most 255. */
export const isMetricName = (name: unknown): name is string => typeof name === "string" && name.length <= maxName && metricName.test(name)

/** The step a call gave as the service takes it (0 when absent), or undefined when it is not a whole number from 0. */
export const stepOf = (step: unknown): number | undefined => {
  if (step === undefined || step === null) return 0
  if (typeof step === "number") return Number.isSafeInteger(step) && step >= 0 ? step : undefined
  if (typeof step === "bigint") return step >= 0n && step <= BigInt(maxStep) ? Number(step) : undefined
  return undefined
}

/** The number a call gave, or undefined when it is not a number. NaN and the infinities are numbers. */
export const valueOf = (value: unknown): number | undefined =>
  typeof value === "number" ? value : typeof value === "bigint" ? Number(value) : undefined

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/** Text the service can store: at most `limit` UTF-16 units, no NUL, no lone surrogate (each becomes U+FFFD). */
export const storable = (text: string, limit: number): string => {
  return text.slice(0, limit).replaceAll("\u0000", "\uFFFD").replace(loneSurrogate, "\uFFFD")
}

/** A level given as a name (any case; WARN and FATAL as Python's logging reads them) or as a number on Python's
 * logging scale (10 DEBUG ... 50 CRITICAL); undefined when it is neither. */
export const severityOf = (level: unknown): Severity | undefined => {
  if (typeof level === "string") {
    const upper = level.toUpperCase()
    if ((severities as ReadonlyArray<string>).includes(upper)) return upper as Severity
    return upper === "WARN" ? "WARNING" : upper === "FATAL" ? "CRITICAL" : undefined
  }
  if (typeof level !== "number" || Number.isNaN(level)) return undefined
  return level >= 50 ? "CRITICAL" : level >= 40 ? "ERROR" : level >= 30 ? "WARNING" : level >= 20 ? "INFO" : "DEBUG"
}

/** A metric's value on the wire: a JSON number, or "nan", "inf" or "-inf". */
export const wireValue = (value: number): string =>
  Number.isFinite(value) ? JSON.stringify(value) : Number.isNaN(value) ? '"nan"' : value > 0 ? '"inf"' : '"-inf"'

/** A record as the batch endpoint takes it: one JSON object's text. */
export const encodeRecord = (record: BufferedRecord): string => {
  const timestamp = new Date(record.at).toISOString()
  return record.kind === "metric"
    ? `{"name":${JSON.stringify(record.name)},"value":${wireValue(record.value)},"step":${record.step},"timestamp":"${timestamp}"}`
    : `{"severity":"${record.severity}","loggerName":${JSON.stringify(record.loggerName)},"message":${JSON.stringify(record.message)},"timestamp":"${timestamp}"}`
}
