import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { isMetricName, metricValue, MetricRecord, postMetric, recordMetric } from "../src/index.ts"
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

describe("postMetric", () => {
  const post = fc.record({ name: fc.constantFrom("acc", "loss"), step: fc.integer({ min: 0, max: 3 }), value: fc.double({ noNaN: true }) })

  test.prop([fc.array(post, { maxLength: 20 })])("keeps one metric per (job, name, step), the last one posted", (posts) => {
    const metrics = posts.reduce((all, p) => postMetric(all, successOf(recordMetric(1, p, at))), [] as ReadonlyArray<MetricRecord>)
    const keys = metrics.map((m) => `${m.name}/${m.step}`)
    expect(new Set(keys).size).toBe(keys.length)
    for (const m of metrics) {
      const last = posts.filter((p) => p.name === m.name && p.step === m.step).at(-1)
      expect(Object.is(metricValue(m), last?.value)).toBe(true)
    }
    expect(new Set(keys)).toEqual(new Set(posts.map((p) => `${p.name}/${p.step}`)))
  })

  it("keeps the metrics of other jobs apart", () => {
    const a = successOf(recordMetric(1, { name: "acc", step: 0, value: 0.5 }, at))
    const b = successOf(recordMetric(2, { name: "acc", step: 0, value: 0.7 }, at))
    expect(postMetric([a], b)).toEqual([a, b])
  })
})
