import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { isMetricName, latestMetrics, metricValue, MetricRecord, parseMetricTimestamp, postMetric, recordMetric, wireMetricValue } from "../src/index.ts"
import { decoded, failureOf, successOf } from "./Fixtures.ts"

const at = "2026-11-30T12:00:00.000Z"

describe("metric names", () => {
  it.each(["a", "Z", "_x", "acc", "val_loss", "F1", "__", "A_1_b"])("accepts %j", (name) => expect(isMetricName(name)).toBe(true))
  it.each(["", "_", "1a", "a-b", "acc.top1", "loss ", "é", "a/b"])("refuses %j", (name) => expect(isMetricName(name)).toBe(false))
})

describe("recordMetric", () => {
  test.prop([fc.double()])("every double, NaN and the infinities included, comes back exactly", (value) => {
    const record = successOf(recordMetric(1, { name: "loss", step: 0, value }, at))
    expect(Object.is(metricValue(record), value)).toBe(true)
    expect(Number.isFinite(record.value)).toBe(true)
    decoded(MetricRecord, JSON.parse(JSON.stringify(record)))
  })

  it.each([
    [NaN, "nan"],
    [Infinity, "inf"],
    [-Infinity, "-inf"]
  ])("stores %s as 0 with special value %j", (value, special) => {
    expect(successOf(recordMetric(3, { name: "loss", step: 2, value }, at))).toEqual({ job: 3, name: "loss", step: 2, value: 0, specialValue: special, timestamp: at })
  })

  it("names every problem of a posted metric", () => {
    const refusal = failureOf(recordMetric(1, { name: "top-1", step: -1, value: 1 }, at))
    expect(refusal.problems.map((p) => p.message)).toEqual([
      'metric name "top-1" must be one letter, or a letter or "_" followed by letters, digits or "_"',
      'metric "top-1": step -1 is not a whole number from 0'
    ])
  })
})

describe("metric timestamps", () => {
  it("keeps the time the client measured at instead of the server's", () => {
    expect(successOf(recordMetric(1, { name: "loss", step: 0, value: 1, timestamp: "2026-01-02T03:04:05.678+00:00" }, at)).timestamp).toBe("2026-01-02T03:04:05.678Z")
  })

  it.each([
    ["2026-01-02T03:04:05.678901", "2026-01-02T03:04:05.678Z"],
    ["2026-01-02 03:04:05", "2026-01-02T03:04:05.000Z"],
    ["2026-01-02T03:04", "2026-01-02T03:04:00.000Z"],
    ["2026-01-02T03:04:05+05:30", "2026-01-01T21:34:05.000Z"],
    ["2026-01-02T03:04:05-0100", "2026-01-02T04:04:05.000Z"],
    ["2026-01-02T03:04:05-01", "2026-01-02T04:04:05.000Z"],
    ["2024-02-29T00:00:00Z", "2024-02-29T00:00:00.000Z"]
  ])("reads %j as %j", (text, instant) => expect(parseMetricTimestamp(text)).toBe(instant))

  it.each(["", "yesterday", "2026-02-30T00:00:00", "2026-13-01T00:00:00", "2026-01-01T24:00:00", "2026-01-01T00:60:00", "2026-01-01T00:00:00+24:00", "2026-01-01", "2026-01-01T00:00:00 Z"])(
    "refuses %j",
    (text) => {
      expect(parseMetricTimestamp(text)).toBeUndefined()
      expect(failureOf(recordMetric(1, { name: "loss", step: 0, value: 1, timestamp: text }, at)).problems.map((p) => p._tag)).toEqual(["InvalidMetricTimestamp"])
    }
  )

  test.prop([fc.date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true })])(
    "every instant's ISO form reads back as itself",
    (date) => {
      expect(parseMetricTimestamp(date.toISOString())).toBe(date.toISOString())
    }
  )

  it("names a bad timestamp with the other problems", () => {
    expect(failureOf(recordMetric(1, { name: "top-1", step: -1, value: 1, timestamp: "soon" }, at)).problems.map((p) => p._tag)).toEqual([
      "InvalidMetricName",
      "InvalidMetricStep",
      "InvalidMetricTimestamp"
    ])
  })
})

describe("wire values", () => {
  test.prop([fc.double()])("a finite value is the number; NaN and the infinities are Dioptra's strings", (value) => {
    const wire = wireMetricValue(successOf(recordMetric(1, { name: "loss", step: 0, value }, at)))
    expect(wire).toBe(Number.isNaN(value) ? "nan" : value === Infinity ? "inf" : value === -Infinity ? "-inf" : value)
  })
})

describe("postMetric and latestMetrics", () => {
  const post = fc.record({ name: fc.constantFrom("acc", "loss"), step: fc.integer({ min: 0, max: 3 }), value: fc.double({ noNaN: true }) })

  test.prop([fc.array(post, { maxLength: 20 })])("keeps every post, re-posts at a step included, in the order posted", (posts) => {
    const metrics = posts.reduce((all, p) => postMetric(all, successOf(recordMetric(1, p, at))), [] as ReadonlyArray<MetricRecord>)
    expect(metrics.map((m) => [m.name, m.step, metricValue(m)])).toEqual(posts.map((p) => [p.name, p.step, p.value]))
  })

  test.prop([fc.array(post, { maxLength: 20 })])("the latest of a name is the last value posted at its highest step", (posts) => {
    const metrics = posts.reduce((all, p) => postMetric(all, successOf(recordMetric(1, p, at))), [] as ReadonlyArray<MetricRecord>)
    const latest = latestMetrics(metrics)
    expect(new Set(latest.map((m) => m.name))).toEqual(new Set(posts.map((p) => p.name)))
    for (const m of latest) {
      const ofName = posts.filter((p) => p.name === m.name)
      const top = Math.max(...ofName.map((p) => p.step))
      expect(m.step).toBe(top)
      expect(Object.is(metricValue(m), ofName.filter((p) => p.step === top).at(-1)?.value)).toBe(true)
    }
  })

  it("keeps the metrics of other jobs apart", () => {
    const a = successOf(recordMetric(1, { name: "acc", step: 0, value: 0.5 }, at))
    const b = successOf(recordMetric(2, { name: "acc", step: 0, value: 0.7 }, at))
    expect(latestMetrics(postMetric([a], b))).toEqual([a, b])
  })
})
