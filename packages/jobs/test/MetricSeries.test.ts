import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { downsampledBound, downsampleSeries, type SeriesPoint } from "../src/index.ts"

const same = (p: SeriesPoint) => p

// A series as the API lists it: ordered by step, then as posted; some values non-finite, and (the steps drawn from
// a range that may be narrow) many steps posted more than once.
const series = fc
  .integer({ min: 0, max: 3000 })
  .chain((maxStep) =>
    fc.array(
      fc.record({
        step: fc.nat({ max: maxStep }),
        value: fc.oneof({ weight: 6, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }) }, fc.constantFrom(NaN, Infinity, -Infinity))
      }),
      { minLength: 1, maxLength: 600 }
    )
  )
  .map((points) => points.map((p, order) => ({ ...p, order })).sort((a, b) => a.step - b.step || a.order - b.order))

const columnsArb = fc.integer({ min: 1, max: 120 })

// What a chart draws of a series: per step, the last finite value posted, or null when only non-finite ones were.
const drawn = (points: ReadonlyArray<SeriesPoint>) => {
  const at = new Map<number, number | null>()
  for (const { step, value } of points) {
    if (Number.isFinite(value)) at.set(step, value)
    else if (!at.has(step)) at.set(step, null)
  }
  return at
}

// The columns of steps the series is split into, as the module splits them.
const columnOf = (points: ReadonlyArray<SeriesPoint>, columns: number) => {
  const first = points[0]!.step
  const span = points.at(-1)!.step - first + 1
  return (step: number) => Math.floor(((step - first) * columns) / span)
}

describe("downsampleSeries", () => {
  test.prop([series, columnsArb])("answers points of the input, in its order, within the bound", (points, columns) => {
    const out = downsampleSeries(points, columns, same)
    expect(out.length).toBeLessThanOrEqual(Math.max(columns, downsampledBound(columns)))
    const indices = out.map((p) => points.indexOf(p))
    expect(indices.every((i) => i >= 0)).toBe(true)
    expect(indices).toEqual([...indices].sort((a, b) => a - b))
    expect(new Set(indices).size).toBe(indices.length)
  })

  test.prop([series, columnsArb])("keeps the first and the last step, drawn as the whole series draws them", (points, columns) => {
    const out = downsampleSeries(points, columns, same)
    expect(out[0]!.step).toBe(points[0]!.step)
    expect(out.at(-1)!.step).toBe(points.at(-1)!.step)
  })

  test.prop([series, columnsArb])("draws the same value as the whole series at every step it keeps", (points, columns) => {
    const whole = drawn(points)
    for (const [step, value] of drawn(downsampleSeries(points, columns, same))) expect(value).toBe(whole.get(step))
  })

  test.prop([series, columnsArb])("keeps each column's lowest and highest drawn value and its first and last drawn step", (points, columns) => {
    const column = columnOf(points, columns)
    const byColumn = (drawnSteps: Map<number, number | null>) => {
      const found = new Map<number, { min: number; max: number; first: number; last: number }>()
      for (const [step, value] of drawnSteps) {
        if (value === null) continue
        const c = column(step)
        const had = found.get(c)
        found.set(c, had === undefined ? { min: value, max: value, first: step, last: step } : { min: Math.min(had.min, value), max: Math.max(had.max, value), first: Math.min(had.first, step), last: Math.max(had.last, step) })
      }
      return found
    }
    const out = downsampleSeries(points, columns, same)
    expect(byColumn(drawn(out))).toEqual(byColumn(drawn(points)))
  })

  test.prop([series, columnsArb])("keeps a marker of each non-finite kind in each column that has one", (points, columns) => {
    const column = columnOf(points, columns)
    const kinds = (ps: ReadonlyArray<SeriesPoint>) =>
      new Set(ps.filter((p) => !Number.isFinite(p.value)).map((p) => `${column(p.step)}:${Number.isNaN(p.value) ? "nan" : p.value > 0 ? "inf" : "-inf"}`))
    expect(kinds(downsampleSeries(points, columns, same))).toEqual(kinds(points))
  })

  it("answers a series no wider than the chart whole", () => {
    const points = [{ step: 0, value: 1 }, { step: 1, value: NaN }, { step: 1, value: 2 }]
    expect(downsampleSeries(points, 3, same)).toBe(points)
  })

  it("cuts a long series to four points per column", () => {
    const points = Array.from({ length: 100_000 }, (_, step) => ({ step, value: Math.sin(step / 100) }))
    const out = downsampleSeries(points, 1000, same)
    expect(out.length).toBeLessThanOrEqual(4000)
    expect(out.length).toBeGreaterThan(1000)
    expect(Math.min(...out.map((p) => p.value))).toBe(Math.min(...points.map((p) => p.value)))
  })

  it("keeps a step's drawn value beside its kept marker, so the line breaks only where the whole series breaks", () => {
    // One column: step 1's drawn value, 2, is neither the first, last, lowest nor highest, but its NaN is kept,
    // and so is it.
    const points = [{ step: 0, value: 1 }, { step: 1, value: NaN }, { step: 1, value: 2 }, { step: 2, value: 3 }, { step: 3, value: 0 }]
    expect(downsampleSeries(points, 1, same)).toEqual(points)
  })

  it("keeps a step's drawn value posted before its kept marker, and a column of markers alone", () => {
    // Step 1's NaN comes after its value 2 (drawn, neither extreme); steps 2 and 3 (the middle column) hold only markers.
    const points = [{ step: 0, value: 1 }, { step: 1, value: 2 }, { step: 1, value: NaN }, { step: 2, value: NaN }, { step: 3, value: Infinity }, { step: 4, value: 3 }, { step: 5, value: 0 }]
    expect(downsampleSeries(points, 3, same)).toEqual(points)
    expect(downsampleSeries(points.slice(0, 3).concat([{ step: 2, value: 3 }, { step: 3, value: 0 }]), 1, same).map((p) => p.value)).toEqual([1, 2, NaN, 3, 0])
  })

  it("splits the steps into equal ranges, one a column, and keeps the first, last, lowest and highest of each", () => {
    // Steps 0-4 and 5-9: [5, 1, 3, 4, 0] keeps steps 0 and 4; [9, 2, 8, 7, 6] keeps steps 5, 6 and 9.
    const points = [5, 1, 3, 4, 0, 9, 2, 8, 7, 6].map((value, step) => ({ step, value }))
    expect(downsampleSeries(points, 2, same).map((p) => p.step)).toEqual([0, 4, 5, 6, 9])
  })

  it("keeps the first and the last of each non-finite value a column has, and a re-posted step's last finite value", () => {
    const points = [
      { step: 0, value: 7 },
      { step: 0, value: 4 },
      { step: 1, value: Infinity },
      { step: 1, value: Infinity },
      { step: 2, value: -Infinity },
      { step: 2, value: NaN },
      { step: 2, value: NaN },
      { step: 3, value: 6 },
      { step: 4, value: 5 }
    ]
    expect(downsampleSeries(points, 1, same)).toEqual([points[1], points[2], points[3], points[4], points[5], points[6], points[7], points[8]])
    // A series that starts and ends with a marker keeps both.
    expect(downsampleSeries([{ step: 0, value: NaN }, { step: 1, value: 1 }, { step: 2, value: NaN }, { step: 3, value: NaN }], 1, same).map((p) => p.step)).toEqual([0, 1, 3])
  })
})

it("of a column's equal lowest or highest values keeps the first, so a series answers the same points every time", () => {
  // One column: 1 is lowest at steps 1 and 3, 5 highest at steps 2 and 4; the first of each is kept.
  const points = [3, 1, 5, 1, 5, 2].map((value, step) => ({ step, value }))
  expect(downsampleSeries(points, 1, same).map((p) => p.step)).toEqual([0, 1, 2, 5])
})
