// The batch's check, pure: what it keeps of a good batch, and how a bad record refuses the whole batch naming it.
import { fc, test } from "@fast-check/vitest"
import { Result } from "effect"
import { describe, expect, test as unit } from "vitest"
import { parseMetricTimestamp } from "@dispatch/jobs"
import { checkBatch, isKeptTime, reportBatchLimits, type BatchMetric } from "../../src/wire/ReportBatch.ts"

const at = "2026-12-01T00:00:00.000Z"
const metric = fc.record({
  name: fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/).filter((n) => n !== "_"),
  value: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom("nan" as const, "inf" as const, "-inf" as const)),
  step: fc.nat()
})
const log = fc.record({ severity: fc.constantFrom("INFO" as const, "ERROR" as const), loggerName: fc.string({ maxLength: 8 }), message: fc.string({ maxLength: 20 }) })

describe("checkBatch", () => {
  test.prop([fc.array(metric, { maxLength: 40 }), fc.array(log, { maxLength: 10 }), fc.nat(5), fc.nat(5)])(
    "keeps every record of a good batch in order, and one drops record when it dropped any",
    (metrics, logs, droppedMetrics, droppedLogs) => {
      const checked = checkBatch(3, { metrics, logs, dropped: { metrics: droppedMetrics, logs: droppedLogs } }, at)
      if (Result.isFailure(checked)) throw new Error(JSON.stringify(checked.failure))
      expect(checked.success.metrics.map((m) => [m.name, m.step, m.job])).toEqual(metrics.map((m) => [m.name, m.step, 3]))
      expect(checked.success.logs.slice(0, logs.length).map((l) => l.message)).toEqual(logs.map((l) => l.message))
      expect(checked.success.logs.length - logs.length).toBe(droppedMetrics + droppedLogs > 0 ? 1 : 0)
      expect(checked.success.answer).toEqual({ job: 3, metrics: metrics.length, logs: logs.length, dropped: { metrics: droppedMetrics, logs: droppedLogs } })
    }
  )

  test.prop([fc.array(metric, { minLength: 1, maxLength: 20 }), fc.nat()])("a bad record anywhere refuses the batch, naming that record", (metrics, where) => {
    const index = where % metrics.length
    const bad: Array<BatchMetric> = metrics.map((m, i) => (i === index ? { ...m, step: -1 } : m))
    const checked = checkBatch(3, { metrics: bad }, at)
    expect(Result.isFailure(checked) && checked.failure.map((p) => p.message)).toEqual([expect.stringMatching(new RegExp(`^metrics\\[${index}\\]: .*step -1`))])
  })

  test.prop([fc.integer({ min: 1, max: 50 })])("more records than the limit is one TooManyRecords (413), however they split", (extra) => {
    const metrics = Array.from({ length: reportBatchLimits.records - 10 }, () => ({ name: "m", value: 1 }))
    const logs = Array.from({ length: 10 + extra }, () => ({ severity: "INFO" as const, loggerName: "t", message: "m" }))
    const checked = checkBatch(3, { metrics, logs }, at)
    expect(Result.isFailure(checked) && checked.failure.map((p) => [p._tag, p.status])).toEqual([["TooManyRecords", 413]])
  })

  test.prop([fc.date({ min: new Date("0001-01-01T00:00:00.000Z"), max: new Date("9999-12-31T23:59:59.999Z"), noInvalidDate: true })])(
    "a time as toISOString writes it is kept as it is, as reading it in full keeps it",
    (date) => {
      const text = date.toISOString()
      expect(isKeptTime(text)).toBe(true)
      expect(parseMetricTimestamp(text)).toBe(text)
    }
  )

  test.prop([
    fc.oneof(
      fc.string(),
      fc.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      fc.constantFrom("2026-02-30T00:00:00.000Z", "0000-01-01T00:00:00.000Z", "2026-01-01T24:00:00.000Z", "2026-04-31T12:00:00.000Z")
    )
  ])("a time taken without reading is one the full reading keeps unchanged; any other is read in full", (text) => {
    if (isKeptTime(text)) expect(parseMetricTimestamp(text)).toBe(text)
    else expect(parseMetricTimestamp(text)).not.toBe(text)
  })

  // Fields near and past their ranges (month 0 and 13, day 0 to 32, hour 24, second 60, year 0, leap and century
  // years), so the check without a Date agrees with the Date's own round trip where the two could part.
  const pad = (n: number, width: number) => String(n).padStart(width, "0")
  test.prop([
    fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(0, 1, 4, 100, 400, 1900, 2000, 2024, 2100, 9999)),
    fc.oneof(fc.integer({ min: 0, max: 13 }), fc.constant(2)),
    fc.oneof(fc.integer({ min: 0, max: 32 }), fc.constantFrom(28, 29, 30, 31)),
    fc.integer({ min: 0, max: 24 }),
    fc.integer({ min: 0, max: 60 }),
    fc.integer({ min: 0, max: 60 }),
    fc.integer({ min: 0, max: 999 })
  ], { numRuns: 2000 })("a time written as toISOString writes it is kept exactly when Date reads it back unchanged, from year 1", (year, month, day, hour, minute, second, ms) => {
    const text = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}.${pad(ms, 3)}Z`
    const read = Date.parse(text)
    const roundTrip = !Number.isNaN(read) && read >= Date.parse("0001-01-01T00:00:00.000Z") && new Date(read).toISOString() === text
    expect(isKeptTime(text)).toBe(roundTrip)
  })

  unit("the first instant the service reads (year 1) is kept as it is", () => {
    expect(isKeptTime("0001-01-01T00:00:00.000Z")).toBe(true)
    expect(isKeptTime("0000-12-31T23:59:59.999Z")).toBe(false)
  })

  unit("each record's time: kept as written, read in full when written otherwise, the service's when absent", () => {
    const checked = checkBatch(
      3,
      {
        metrics: [
          { name: "a", value: 1, timestamp: "2026-01-02T03:04:05.678Z" },
          { name: "a", value: 2, timestamp: "2026-01-02T03:04:05+01:00" },
          { name: "a", value: 3 }
        ],
        logs: [
          { severity: "INFO", loggerName: "t", message: "kept", timestamp: "2026-01-02T03:04:05.678Z" },
          { severity: "INFO", loggerName: "t", message: "read", timestamp: "2026-01-02 03:04:05.1" },
          { severity: "INFO", loggerName: "t", message: "now" }
        ]
      },
      at
    )
    if (Result.isFailure(checked)) throw new Error(JSON.stringify(checked.failure))
    expect(checked.success.metrics.map((m) => m.timestamp)).toEqual(["2026-01-02T03:04:05.678Z", "2026-01-02T02:04:05.000Z", at])
    expect(checked.success.logs.map((l) => [l.message, l.createdOn])).toEqual([
      ["kept", "2026-01-02T03:04:05.678Z"],
      ["read", "2026-01-02T03:04:05.100Z"],
      ["now", at]
    ])
  })

  unit("bad times are named with their record, the log's with its own problem", () => {
    const checked = checkBatch(
      3,
      { metrics: [{ name: "a", value: 1, timestamp: "2026-02-30T00:00:00.000Z" }], logs: [{ severity: "INFO", loggerName: "t", message: "m", timestamp: "2026-02-30T00:00:00.000Z" }] },
      at
    )
    expect(Result.isFailure(checked) && checked.failure.map((p) => [p._tag, (p as any).record, (p as any).problem, p.status])).toEqual([
      ["InvalidRecord", "metrics[0]", "InvalidMetricTimestamp", 400],
      ["InvalidRecord", "logs[0]", "InvalidLogTimestamp", 400]
    ])
    expect(Result.isFailure(checked) && checked.failure[1]?.message).toBe(
      'logs[0]: timestamp "2026-02-30T00:00:00.000Z" is not an ISO-8601 date and time (YYYY-MM-DDTHH:MM[:SS[.fraction]][Z|+HH:MM])'
    )
  })

  unit("an empty batch stores nothing and answers zeros; exactly the limit is taken", () => {
    expect(checkBatch(3, {}, at)).toEqual(Result.succeed({ metrics: [], logs: [], answer: { job: 3, metrics: 0, logs: 0, dropped: { metrics: 0, logs: 0 } } }))
    const full = checkBatch(3, { metrics: Array.from({ length: reportBatchLimits.records }, () => ({ name: "m", value: 1 })) }, at)
    expect(Result.isSuccess(full) && full.success.answer.metrics).toBe(reportBatchLimits.records)
    const over = checkBatch(3, { metrics: Array.from({ length: reportBatchLimits.records + 1 }, () => ({ name: "m", value: 1 })) }, at)
    expect(Result.isFailure(over) && over.failure[0]?.message).toBe(
      `the batch holds ${reportBatchLimits.records + 1} records (metric values and log records together); at most ${reportBatchLimits.records} are taken in one batch: send them as smaller batches`
    )
  })

  unit("drops of one kind alone are recorded as one WARNING record of the reporter's logger", () => {
    for (const dropped of [{ metrics: 2 }, { logs: 5 }]) {
      const checked = checkBatch(3, { dropped }, at)
      if (Result.isFailure(checked)) throw new Error("refused")
      expect(checked.success.logs).toEqual([
        {
          job: 3,
          severity: "WARNING",
          loggerName: "dispatch.report",
          message: `the job's reporter dropped ${dropped.metrics ?? 0} metric values and ${dropped.logs ?? 0} log records: its buffer was full while the service could not be reached`,
          createdOn: at
        }
      ])
    }
  })
})
