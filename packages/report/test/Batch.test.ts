// Batches off the buffer: every record once, in order, within the record and byte limits, with the drops told in
// the first; and each body is one the service's own check (the batch endpoint's) stores record for record.
import { fc, test } from "@fast-check/vitest"
import { Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { checkBatch, ReportBatch } from "../../server/src/wire/ReportBatch.ts"
import { takeBatch, type Batch } from "../src/Batch.ts"
import { RecordBuffer } from "../src/RecordBuffer.ts"
import { encodeRecord, maxMessage, maxName, severities, storable, type BufferedRecord } from "../src/WireRecord.ts"

const at = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) })
const metric: fc.Arbitrary<BufferedRecord> = fc.record({
  kind: fc.constant("metric" as const),
  name: fc.stringMatching(/^(?:[A-Za-z][A-Za-z0-9_]{0,12}|_[A-Za-z0-9_]{1,12})$/),
  value: fc.double(),
  step: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
  at
})
const log: fc.Arbitrary<BufferedRecord> = fc.record({
  kind: fc.constant("log" as const),
  severity: fc.constantFrom(...severities),
  loggerName: fc.string({ unit: "binary", maxLength: 20 }).map((n) => storable(n, maxName)),
  message: fc.string({ unit: "binary", maxLength: 200 }).map((m) => storable(m, maxMessage)),
  at
})
const records = fc.array(fc.oneof(metric, log), { maxLength: 60 })
const limits = fc.record({ records: fc.integer({ min: 1, max: 25 }), bytes: fc.integer({ min: 1024, max: 8192 }) })

const decode = Schema.decodeUnknownSync(ReportBatch)

const drain = (buffer: RecordBuffer<BufferedRecord>, l: { records: number; bytes: number }): Array<Batch> => {
  const batches: Array<Batch> = []
  for (let batch = takeBatch(buffer, l); batch !== undefined; batch = takeBatch(buffer, l)) batches.push(batch)
  return batches
}

describe("takeBatch", () => {
  test.prop([records, limits, fc.nat(5), fc.nat(5)])(
    "takes every record once, in order, within the limits, the drops with the first batch; the service stores each batch as it was logged",
    (all, l, droppedMetrics, droppedLogs) => {
      const buffer = new RecordBuffer<BufferedRecord>(1000, (r) => r.kind === "metric")
      for (const r of all) buffer.push(r)
      buffer.restoreDrops({ metrics: droppedMetrics, logs: droppedLogs })
      const batches = drain(buffer, l)
      expect(buffer.length).toBe(0)
      for (const [i, batch] of batches.entries()) {
        const body = JSON.parse(batch.body) as { metrics: Array<unknown>; logs: Array<unknown>; dropped: unknown }
        expect(body.metrics.length + body.logs.length).toBeLessThanOrEqual(l.records)
        expect([body.metrics.length, body.logs.length]).toEqual([batch.metrics, batch.logs])
        if (batch.metrics + batch.logs > 1) expect(Buffer.byteLength(batch.body)).toBeLessThanOrEqual(l.bytes)
        // Cut at the byte limit only when the next record would not have fitted.
        if (batch.cutByBytes) expect(i).toBeLessThan(batches.length - 1)
        expect(batch.dropped).toEqual(i === 0 ? { metrics: droppedMetrics, logs: droppedLogs } : { metrics: 0, logs: 0 })
        expect(body.dropped).toEqual(batch.dropped)
        // The service's own check takes the batch whole, with each record's step, value and time.
        const checked = checkBatch(7, decode(body), "2026-12-07T12:00:00.000Z")
        if (Result.isFailure(checked)) throw new Error(JSON.stringify(checked.failure.map((p) => p.message)))
        const stored = checked.success
        const metrics = body.metrics.map((m) => m as { name: string; step: number; timestamp: string })
        expect(stored.metrics.map((m) => [m.name, m.step, m.timestamp])).toEqual(metrics.map((m) => [m.name, m.step, m.timestamp]))
        expect(stored.answer).toEqual({ job: 7, metrics: batch.metrics, logs: batch.logs, dropped: batch.dropped })
      }
      // Every record, once, in order within its kind.
      const wire = (kind: "metric" | "log") => all.filter((r) => r.kind === kind).map((r) => JSON.parse(encodeRecord(r)) as unknown)
      expect(batches.flatMap((b) => (JSON.parse(b.body) as { metrics: Array<unknown> }).metrics)).toEqual(wire("metric"))
      expect(batches.flatMap((b) => (JSON.parse(b.body) as { logs: Array<unknown> }).logs)).toEqual(wire("log"))
      if (all.length === 0 && droppedMetrics + droppedLogs === 0) expect(batches).toEqual([])
    }
  )

  it("fills a batch to its byte limit exactly: each record's bytes and its comma, within the body's own allowance", () => {
    const buffer = new RecordBuffer<BufferedRecord>(100, (r) => r.kind === "metric")
    const record: BufferedRecord = { kind: "metric", name: "loss", value: 0.5, step: 1, at: 0 }
    const size = Buffer.byteLength(encodeRecord(record)) + 1
    for (let i = 0; i < 20; i++) buffer.push(record)
    // Room for exactly 7 records after the body's 64 bytes of its own.
    const batch = takeBatch(buffer, { records: 100, bytes: 64 + 7 * size })
    expect([batch?.metrics, batch?.cutByBytes]).toEqual([7, true])
    expect(Buffer.byteLength(batch?.body ?? "")).toBeLessThanOrEqual(64 + 7 * size)
    expect(takeBatch(buffer, { records: 100, bytes: 64 + 7 * size - 1 })?.metrics).toBe(6)
  })

  it("tells drops of both kinds alone", () => {
    const buffer = new RecordBuffer<BufferedRecord>(10, (r) => r.kind === "metric")
    buffer.restoreDrops({ metrics: 1, logs: 1 })
    expect(takeBatch(buffer, { records: 10, bytes: 1024 })?.dropped).toEqual({ metrics: 1, logs: 1 })
  })

  it("sends a record bigger than the byte limit alone rather than never", () => {
    const buffer = new RecordBuffer<BufferedRecord>(10, (r) => r.kind === "metric")
    const message = "x".repeat(5000)
    buffer.push({ kind: "log", severity: "INFO", loggerName: "t", message, at: 0 })
    buffer.push({ kind: "log", severity: "INFO", loggerName: "t", message, at: 0 })
    const batches = drain(buffer, { records: 10, bytes: 1024 })
    expect(batches.map((b) => [b.logs, b.cutByBytes])).toEqual([[1, true], [1, false]])
  })

  it("is nothing when neither records nor drops wait, and the drops alone when only they do", () => {
    const buffer = new RecordBuffer<BufferedRecord>(10, (r) => r.kind === "metric")
    expect(takeBatch(buffer, { records: 10, bytes: 1024 })).toBeUndefined()
    buffer.restoreDrops({ metrics: 3, logs: 0 })
    expect(takeBatch(buffer, { records: 10, bytes: 1024 })).toEqual({ body: '{"metrics":[],"logs":[],"dropped":{"metrics":3,"logs":0}}', metrics: 0, logs: 0, dropped: { metrics: 3, logs: 0 }, cutByBytes: false })
  })
})
