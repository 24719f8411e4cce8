// A metric's series cut down to what a chart `columns` pixels wide can show, keeping its shape: M4 aggregation
// (per pixel column the first, last, lowest and highest drawn value), which rasterises the same line as the whole
// series. The steps are split into `columns` equal ranges, as a linear x axis splits them into pixel columns.
//
// What a chart draws at a step is the last finite value posted at it (a re-post replaces it on the line); a
// non-finite value is a marker, and a step with only non-finite values breaks the line. So, per column, the
// candidates for the line are each step's last finite value, and the markers kept are the first NaN, +∞ and −∞;
// a kept marker's step also keeps its drawn value, so the line breaks only where the whole series breaks it.

/** How many pixel columns a downsampled series may be asked for, at most. */
export const maxSeriesColumns = 10_000

/** The most points a series cut to `columns` columns holds: per column 4 drawn values, 3 markers and the
 * drawn values at those 3 markers' steps. */
export const downsampledBound = (columns: number): number => 10 * columns

/** A point of a metric's series as downsampling reads it: its step and its value as a number (NaN and the
 * infinities for the non-finite values). */
export interface SeriesPoint {
  readonly step: number
  readonly value: number
}

type MarkerKind = "nan" | "inf" | "-inf"

const markerKind = (value: number): MarkerKind => (Number.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf")

/**
 * The points of `points` (ordered by step, then as posted: as the API lists them) that a chart `columns` wide
 * needs, in their order: per column of steps the first, last, lowest and highest value the chart draws, the first
 * of each non-finite kind, and the drawn value at each kept marker's step. Every point answered is one of
 * `points` (the same object); a series that fits is answered whole.
 */
export const downsampleSeries = <P>(points: ReadonlyArray<P>, columns: number, read: (point: P) => SeriesPoint): ReadonlyArray<P> => {
  const width = Math.max(1, Math.floor(columns))
  if (points.length <= width) return points
  const first = read(points[0] as P).step
  const span = read(points[points.length - 1] as P).step - first + 1
  const column = (step: number) => Math.min(width - 1, Math.floor(((step - first) * width) / span))
  // The index of the drawn value at each step (its last finite value), found in one pass.
  const drawnAt = new Map<number, number>()
  points.forEach((point, i) => {
    const { step, value } = read(point)
    if (Number.isFinite(value)) drawnAt.set(step, i)
  })
  const kept = new Set<number>()
  let current = -1
  let firstDrawn = -1
  let lastDrawn = -1
  let lowest = -1
  let highest = -1
  let markers = new Map<MarkerKind, number>()
  const close = () => {
    for (const i of [firstDrawn, lastDrawn, lowest, highest]) if (i >= 0) kept.add(i)
    for (const i of markers.values()) {
      kept.add(i)
      const drawn = drawnAt.get(read(points[i] as P).step)
      if (drawn !== undefined) kept.add(drawn)
    }
  }
  points.forEach((point, i) => {
    const { step, value } = read(point)
    const at = column(step)
    if (at !== current) {
      close()
      current = at
      firstDrawn = lastDrawn = lowest = highest = -1
      markers = new Map()
    }
    if (!Number.isFinite(value)) {
      const kind = markerKind(value)
      if (!markers.has(kind)) markers.set(kind, i)
      return
    }
    if (drawnAt.get(step) !== i) return
    if (firstDrawn < 0) firstDrawn = i
    lastDrawn = i
    if (lowest < 0 || value < read(points[lowest] as P).value) lowest = i
    if (highest < 0 || value > read(points[highest] as P).value) highest = i
  })
  close()
  return [...kept].sort((a, b) => a - b).map((i) => points[i] as P)
}
