// A job's metric snapshots as chart data: one x axis of steps shared by every metric, a y array per metric,
// and the non-finite values apart as markers, since a chart can draw neither NaN nor an infinity as a point.
// A step where a metric was posted only non-finite values is a gap (null: its line breaks there); a step where
// it was not posted at all, only another metric was, is undefined (its line runs across, as uPlot reads it).

/** A metric value as the API gives it: a number, or `nan`, `inf`, `-inf`. */
export type WireValue = number | string

/** One posted value of a metric. */
export interface Snapshot {
  readonly step: number
  readonly value: WireValue
}

/** A value a chart cannot place: where it is and what it was. */
export interface Marker {
  readonly step: number
  readonly kind: "nan" | "inf" | "-inf"
}

/** The chart data of some metrics: shared steps, a y array per metric (aligned with the steps: a value, null
 * for a break, undefined for a step it was not posted at), markers per metric. */
export interface Series {
  readonly names: ReadonlyArray<string>
  readonly steps: Float64Array
  readonly values: ReadonlyArray<ReadonlyArray<number | null | undefined>>
  readonly markers: ReadonlyArray<ReadonlyArray<Marker>>
}

/** The number a wire value stands for; NaN for anything unknown. */
export const wireNumber = (value: WireValue): number => {
  if (typeof value === "number") return value
  switch (value.toLowerCase()) {
    case "inf":
    case "infinity":
    case "+inf":
      return Infinity
    case "-inf":
    case "-infinity":
      return -Infinity
    default:
      return NaN
  }
}

/** The marker kind of a non-finite number. */
const markerKind = (n: number): Marker["kind"] => (Number.isNaN(n) ? "nan" : n > 0 ? "inf" : "-inf")

/**
 * Builds chart data from each metric's snapshots (any order). A step posted more than once shows its last
 * finite value posted; a step whose values are all non-finite is a gap (null) with a marker for each of them.
 */
export const buildSeries = (metrics: ReadonlyArray<{ readonly name: string; readonly snapshots: ReadonlyArray<Snapshot> }>): Series => {
  const stepSet = new Set<number>()
  for (const m of metrics) for (const s of m.snapshots) stepSet.add(s.step)
  const steps = Float64Array.from(stepSet).sort()
  const index = new Map<number, number>()
  steps.forEach((step, i) => index.set(step, i))
  const values: Array<Array<number | null | undefined>> = []
  const markers: Array<Array<Marker>> = []
  for (const m of metrics) {
    const ys: Array<number | null | undefined> = new Array<number | null | undefined>(steps.length).fill(undefined)
    const marks: Array<Marker> = []
    for (const s of m.snapshots) {
      const n = wireNumber(s.value)
      const at = index.get(s.step) ?? 0
      if (Number.isFinite(n)) ys[at] = n
      else {
        marks.push({ step: s.step, kind: markerKind(n) })
        if (ys[at] === undefined) ys[at] = null
      }
    }
    values.push(ys)
    markers.push(marks)
  }
  return { names: metrics.map((m) => m.name), steps, values, markers }
}
