// A metric's series cut down to what a chart `columns` pixels wide can show, keeping its shape: M4 aggregation
// (per pixel column the first, last, lowest and highest drawn value), which rasterises the same line as the whole
// series. The steps are split into `columns` equal ranges, as a linear x axis splits them into pixel columns.
//
// What a chart draws at a step is the last finite value posted at it (a re-post replaces it on the line); a
// non-finite value is a marker, and a step with only non-finite values breaks the line. So, per column, the
// candidates for the line are each step's last finite value, and the markers kept are the first and the last NaN, +∞
// and −∞ (so a series that starts or ends with one keeps it);
// a kept marker's step also keeps its drawn value, so the line breaks only where the whole series breaks it.

/** How many pixel columns a downsampled series may be asked for, at most. */
export const maxSeriesColumns = 10_000

/** The most points a series cut to `columns` columns holds: per column 4 drawn values, the first and last of 3
 * kinds of marker, and the drawn values at those 6 markers' steps. */
export const downsampledBound = (columns: number): number => 16 * columns

/** A point of a metric's series as downsampling reads it: its step and its value as a number (NaN and the
 * infinities for the non-finite values). */
export interface SeriesPoint {
  readonly step: number
  readonly value: number
}

// One pixel column being read: the indices of its first, last, lowest and highest drawn value (once it has one),
// and of its first and last marker of each non-finite value (NaN, Infinity, -Infinity: a Map keys NaN as itself).
interface Column {
  readonly at: number
  drawn?: { first: number; last: number; lowest: number; highest: number }
  readonly firstMarkers: Map<number, number>
  readonly lastMarkers: Map<number, number>
}

const openColumn = (at: number): Column => ({ at, firstMarkers: new Map(), lastMarkers: new Map() })

/**
 * The points of `points` (ordered by step, then as posted: as the API lists them) that a chart `columns` wide
 * needs, in their order: per column of steps the first, last, lowest and highest value the chart draws, the first
 * and last of each non-finite value, and the drawn value at each kept marker's step. Every point answered is one of
 * `points` (the same object); a series that fits is answered whole.
 */
export const downsampleSeries = <P>(points: ReadonlyArray<P>, columns: number, read: (point: P) => SeriesPoint): ReadonlyArray<P> => {
  const width = Math.max(1, Math.floor(columns))
  if (points.length <= width) return points
  const first = read(points[0] as P).step
  const span = read(points[points.length - 1] as P).step - first + 1
  // (step - first) < span, so every step falls in a column below `width`.
  const columnOf = (step: number) => Math.floor(((step - first) * width) / span)
  // The index of the drawn value at each step (its last finite value), found in one pass.
  const drawnAt = new Map<number, number>()
  points.forEach((point, i) => {
    const { step, value } = read(point)
    if (Number.isFinite(value)) drawnAt.set(step, i)
  })
  const kept = new Set<number>()
  const close = (column: Column) => {
    const { drawn } = column
    if (drawn !== undefined) for (const i of [drawn.first, drawn.last, drawn.lowest, drawn.highest]) kept.add(i)
    for (const i of [...column.firstMarkers.values(), ...column.lastMarkers.values()]) {
      kept.add(i)
      const atStep = drawnAt.get(read(points[i] as P).step)
      if (atStep !== undefined) kept.add(atStep)
    }
  }
  let column = openColumn(0)
  points.forEach((point, i) => {
    const { step, value } = read(point)
    const at = columnOf(step)
    if (at !== column.at) {
      close(column)
      column = openColumn(at)
    }
    if (!Number.isFinite(value)) {
      if (!column.firstMarkers.has(value)) column.firstMarkers.set(value, i)
      column.lastMarkers.set(value, i)
    } else if (drawnAt.get(step) === i) {
      const drawn = (column.drawn ??= { first: i, last: i, lowest: i, highest: i })
      drawn.last = i
      if (value < read(points[drawn.lowest] as P).value) drawn.lowest = i
      if (value > read(points[drawn.highest] as P).value) drawn.highest = i
    }
  })
  close(column)
  return [...kept].sort((a, b) => a - b).map((i) => points[i] as P)
}
