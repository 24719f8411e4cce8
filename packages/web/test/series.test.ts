// Metric snapshots as chart data: shared steps, gaps where a value is not finite, and a marker for each of those.
import { test as propTest } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { buildSeries, wireNumber, type Snapshot } from "../app/series.ts"
import { mapLimited, windowsFrom } from "../app/windows.ts"

const value = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom("nan", "inf", "-inf"))
const snapshot: fc.Arbitrary<Snapshot> = fc.record({ step: fc.integer({ min: 0, max: 50 }), value })
const metric = fc.record({ name: fc.string({ minLength: 1, maxLength: 8 }), snapshots: fc.array(snapshot, { maxLength: 30 }) })

describe("chart series", () => {
  propTest.prop([fc.array(metric, { maxLength: 4 })])("every snapshot is a point at its step or a marker, and steps are shared and ascending", (metrics) => {
    const s = buildSeries(metrics)
    const allSteps = [...new Set(metrics.flatMap((m) => m.snapshots.map((p) => p.step)))].sort((a, b) => a - b)
    expect([...s.steps]).toEqual(allSteps)
    metrics.forEach((m, i) => {
      const ys = s.values[i] ?? []
      expect(ys).toHaveLength(allSteps.length)
      const finite = m.snapshots.filter((p) => Number.isFinite(wireNumber(p.value)))
      const others = m.snapshots.filter((p) => !Number.isFinite(wireNumber(p.value)))
      expect(s.markers[i]).toEqual(others.map((p) => ({ step: p.step, kind: p.value })))
      // Each step shows the last finite value posted at it; one with only non-finite values is a break (null);
      // one the metric was not posted at is undefined, for the line to run across.
      allSteps.forEach((step, j) => {
        const last = finite.filter((p) => p.step === step).at(-1)
        const posted = m.snapshots.some((p) => p.step === step)
        expect(ys[j]).toBe(last !== undefined ? last.value : posted ? null : undefined)
      })
    })
  })

  it("places NaN and the infinities as markers, not points", () => {
    const s = buildSeries([{ name: "loss", snapshots: [{ step: 0, value: 1 }, { step: 1, value: "nan" }, { step: 2, value: "inf" }, { step: 3, value: "-inf" }, { step: 4, value: 0.5 }] }])
    expect([...s.steps]).toEqual([0, 1, 2, 3, 4])
    expect(s.values).toEqual([[1, null, null, null, 0.5]])
    expect(s.values[0]?.[1]).toBeNull()
    expect(s.markers).toEqual([[{ step: 1, kind: "nan" }, { step: 2, kind: "inf" }, { step: 3, kind: "-inf" }]])
  })

  it("runs a line across the steps only another metric was posted at", () => {
    const s = buildSeries([
      { name: "a", snapshots: [{ step: 0, value: 1 }, { step: 2, value: 3 }] },
      { name: "b", snapshots: [{ step: 1, value: 5 }, { step: 2, value: "nan" }] }
    ])
    expect([...s.steps]).toEqual([0, 1, 2])
    expect(s.values[0]).toEqual([1, undefined, 3])
    expect(s.values[1]).toEqual([undefined, 5, null])
  })

  it("reads every spelling of the non-finite values", () => {
    expect(wireNumber("NaN")).toBeNaN()
    expect(wireNumber("Infinity")).toBe(Infinity)
    expect(wireNumber("-Infinity")).toBe(-Infinity)
    expect(wireNumber("inf")).toBe(Infinity)
    expect(wireNumber(2.5)).toBe(2.5)
  })

  it("builds 100,000 points quickly enough to draw within a second", () => {
    const snapshots = Array.from({ length: 100_000 }, (_, step) => ({ step, value: step % 997 === 0 ? "nan" : Math.sin(step) }))
    const s = buildSeries([{ name: "big", snapshots }])
    expect(s.steps).toHaveLength(100_000)
    expect(s.markers[0]).toHaveLength(Math.ceil(100_000 / 997))
  })
})

describe("reading a long list in windows", () => {
  propTest.prop([fc.nat({ max: 1000 }), fc.nat({ max: 5000 }), fc.integer({ min: 1, max: 300 })])("the windows cover from..total once, in order, none longer than the page", (from, total, size) => {
    const ws = windowsFrom(from, total, size)
    let at = from
    for (const w of ws) {
      expect(w.index).toBe(at)
      expect(w.pageLength).toBeGreaterThan(0)
      expect(w.pageLength).toBeLessThanOrEqual(size)
      at += w.pageLength
    }
    expect(at).toBe(Math.max(from, total))
  })

  propTest.prop([fc.array(fc.nat({ max: 5 }), { maxLength: 30 }), fc.integer({ min: 1, max: 8 })])("runs at most `limit` tasks at once and keeps the items' order", async (delays, limit) => {
    let running = 0
    let most = 0
    const out = await mapLimited(delays, limit, async (d) => {
      running++
      most = Math.max(most, running)
      await new Promise((r) => setTimeout(r, d))
      running--
      return d * 2
    })
    expect(out).toEqual(delays.map((d) => d * 2))
    expect(most).toBeLessThanOrEqual(limit)
  })
})
