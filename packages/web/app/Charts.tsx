// A job's metrics as charts (uPlot: canvas, made for many points): one chart per metric over its steps, an
// overlay of the metrics picked, values shown on hover, NaN and the infinities drawn as markers at the plot's
// middle, top and bottom. A table view lists the values exactly as the API gives them, a page at a time.
import { useEffect, useRef, useState } from "preact/hooks"
import uPlot from "uplot"
import "uplot/dist/uPlot.min.css"
import { call } from "./api.ts"
import { formatMetric, formatTime } from "./format.ts"
import { pollMs, useRepeating } from "./hooks.ts"
import { buildSeries, type Marker, type Series } from "./series.ts"
import { mapLimited, windowsFrom } from "./windows.ts"

const palette = ["#0b6bcb", "#d9480f", "#2b8a3e", "#ae3ec9", "#c92a2a", "#1098ad", "#e67700", "#5c7cfa"]

/** One posted value of a metric, as the API answers it. */
interface Point {
  readonly step: number
  readonly value: number | string
  readonly timestamp: string
}

// The API pages a metric's snapshots up to 10,000 at a time: a 100,000-point chart is ten requests.
const apiPage = 10_000

/** The pixel columns a chart may span on this screen: what a series is first cut to. */
const screenColumns = () => Math.min(4000, Math.max(280, Math.ceil(window.innerWidth * devicePixelRatio)))

/** A series longer than this is first read cut to the screen's width (about four points a column keeps its shape);
 * its every value comes on demand. */
const wholeUpTo = () => 4 * screenColumns()

/** Every value posted for metric `name` of job `id`, or with `columns` the series cut to that many pixel columns:
 * the first page says how many, the rest are read side by side. */
const readSnapshots = async (id: number, name: string, columns?: number): Promise<ReadonlyArray<Point>> => {
  const width = columns === undefined ? {} : { columns }
  const page = (index: number, pageLength: number) => call((c) => c.jobs.metricSnapshots({ params: { id, name }, query: { index, pageLength, ...width } }))
  const first = await page(0, apiPage)
  const pages = await mapLimited(windowsFrom(first.data.length, first.totalNumResults, apiPage), 6, async (w) => {
    const got = await page(w.index, w.pageLength)
    // A page cut short (its byte limit) is finished one page at a time.
    let items = got.data
    while (items.length < w.pageLength) {
      const more = await page(w.index + items.length, w.pageLength - items.length)
      if (more.data.length === 0) break
      items = [...items, ...more.data]
    }
    return items
  })
  return [first.data, ...pages].flat()
}

const markerText: Record<Marker["kind"], string> = { nan: "NaN", inf: "+∞", "-inf": "−∞" }

/** Draws each series' markers: +∞ at the plot's top, −∞ at its bottom, NaN across its middle. */
const drawMarkers = (u: uPlot, series: Series) => {
  const ctx = u.ctx
  const { left, top, width, height } = u.bbox
  const r = 4 * devicePixelRatio
  ctx.save()
  ctx.beginPath()
  ctx.rect(left, top, width, height)
  ctx.clip()
  series.markers.forEach((marks, i) => {
    if (u.series[i + 1]?.show === false) return
    ctx.strokeStyle = ctx.fillStyle = palette[i % palette.length] ?? "#000"
    ctx.lineWidth = 1.5 * devicePixelRatio
    for (const m of marks) {
      const x = u.valToPos(m.step, "x", true)
      ctx.beginPath()
      if (m.kind === "inf") {
        ctx.moveTo(x, top + r / 2)
        ctx.lineTo(x - r, top + 2.5 * r)
        ctx.lineTo(x + r, top + 2.5 * r)
        ctx.closePath()
        ctx.fill()
      } else if (m.kind === "-inf") {
        ctx.moveTo(x, top + height - r / 2)
        ctx.lineTo(x - r, top + height - 2.5 * r)
        ctx.lineTo(x + r, top + height - 2.5 * r)
        ctx.closePath()
        ctx.fill()
      } else {
        ctx.arc(x, top + height / 2, r, 0, 2 * Math.PI)
        ctx.stroke()
      }
    }
  })
  ctx.restore()
}

/** A uPlot chart of `series`; `measure` names the performance measure from `arrived` to the first draw's end. */
const Chart = ({ series, testid, metric, arrived, measure }: { readonly series: Series; readonly testid: string; readonly metric: string; readonly arrived: number; readonly measure?: string }) => {
  const holder = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const el = holder.current
    if (el === null) return undefined
    el.dataset["drawn"] = "false"
    let first = true
    const opts: uPlot.Options = {
      width: Math.max(280, el.clientWidth),
      height: 260,
      scales: { x: { time: false } },
      axes: [{ label: "step" }, {}],
      legend: { live: true },
      cursor: { focus: { prox: 16 } },
      series: [
        { label: "step", value: (_u, v) => (v === null ? "" : String(v)) },
        ...series.names.map((name, i) => ({
          label: name,
          stroke: palette[i % palette.length] ?? "#000",
          width: 1.5,
          spanGaps: false,
          points: { show: series.steps.length <= 200 },
          value: (_u: uPlot, v: number | null | undefined) => (typeof v === "number" ? formatMetric(v) : "—")
        }))
      ],
      hooks: {
        draw: [
          (u) => {
            drawMarkers(u, series)
            if (first) {
              first = false
              if (measure !== undefined) performance.measure(measure, { start: arrived, end: performance.now() })
              el.dataset["drawn"] = "true"
            }
          }
        ]
      }
    }
    const plot = new uPlot(opts, [series.steps as unknown as Array<number>, ...(series.values as Array<Array<number | null>>)], el)
    const resized = new ResizeObserver(() => {
      const w = Math.max(280, el.clientWidth)
      if (Math.abs(w - plot.width) > 2) plot.setSize({ width: w, height: 260 })
    })
    resized.observe(el)
    return () => {
      resized.disconnect()
      plot.destroy()
    }
  }, [series])
  const marks = series.markers.flatMap((ms, i) => ms.map((m) => ({ ...m, name: series.names[i] ?? "" })))
  return (
    <>
      <div class="chart" ref={holder} data-testid={testid} data-metric={metric} data-points={series.values.reduce((n, ys) => n + ys.filter((y) => typeof y === "number").length, 0)} data-markers={marks.length} role="img" aria-label={`${metric} over steps`} />
      {marks.length > 0 && (
        <p class="markers">
          Not drawable as points:{" "}
          {marks
            .slice(0, 12)
            .map((m) => `${series.names.length > 1 ? `${m.name} ` : ""}${markerText[m.kind]} at step ${m.step}`)
            .join(", ")}
          {marks.length > 12 ? `, and ${marks.length - 12} more` : ""}
        </p>
      )}
    </>
  )
}

const tablePage = 100

/** The values of one metric as the API gives them, a page at a time. */
const MetricTable = ({ points }: { readonly points: ReadonlyArray<Point> }) => {
  const [index, setIndex] = useState(0)
  const shown = points.slice(index, index + tablePage)
  return (
    <>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th>Step</th>
              <th>Value</th>
              <th>Measured</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((p, i) => (
              <tr key={index + i} data-testid="metric-row" data-step={p.step} data-value={String(p.value)}>
                <td>{p.step}</td>
                <td>{String(p.value)}</td>
                <td>{formatTime(p.timestamp)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav class="pager" aria-label="metric pages">
        <button type="button" data-testid="metric-page-prev" disabled={index === 0} onClick={() => setIndex(Math.max(0, index - tablePage))}>
          ← Previous
        </button>
        <span>{points.length === 0 ? "none" : `${index + 1}–${index + shown.length} of ${points.length}`}</span>
        <button type="button" data-testid="metric-page-next" disabled={index + tablePage >= points.length} onClick={() => setIndex(index + tablePage)}>
          Next →
        </button>
      </nav>
    </>
  )
}

interface Loaded {
  readonly name: string
  readonly points: ReadonlyArray<Point>
  readonly series: Series
  readonly arrived: number
  /** How many values were posted: more than `points` holds when the series was read cut to the screen's width. */
  readonly total: number
}

/** One metric: its chart, and its values as a table on demand; a chart drawn from the series cut to the screen's
 * width says so and reads every value on demand (the table needs them all too). */
const MetricSection = ({ metric, readWhole }: { readonly metric: Loaded; readonly readWhole: (name: string) => void }) => {
  const [table, setTable] = useState(false)
  const cut = metric.points.length < metric.total
  useEffect(() => {
    if (table && cut) readWhole(metric.name)
  }, [table, cut])
  return (
    <section class="panel metric" aria-label={`metric ${metric.name}`} data-testid="metric" data-metric={metric.name}>
      <div class="toolbar">
        <h3>{metric.name}</h3>
        <button type="button" data-testid="metric-table-toggle" aria-expanded={table} onClick={() => setTable(!table)}>
          {table ? "Hide table" : "Show table"}
        </button>
      </div>
      <Chart series={metric.series} testid="metric-chart" metric={metric.name} arrived={metric.arrived} measure={`chart:${metric.name}`} />
      {cut && (
        <p class="muted" data-testid="metric-cut" data-total={metric.total}>
          The shape of {metric.total.toLocaleString("en")} values, from {metric.points.length.toLocaleString("en")} of them.{" "}
          <button type="button" data-testid="metric-read-whole" onClick={() => readWhole(metric.name)}>
            Draw every value
          </button>
        </p>
      )}
      {table && (cut ? <p class="muted">Loading every value…</p> : <MetricTable points={metric.points} />)}
    </section>
  )
}

/** Every metric of job `id`, kept current while `live`: a metric is read again when its count changes. */
export const MetricCharts = ({ id, live }: { readonly id: number; readonly live: boolean }) => {
  const [metrics, setMetrics] = useState<ReadonlyArray<Loaded>>([])
  const [error, setError] = useState<string | undefined>(undefined)
  const [overlay, setOverlay] = useState<ReadonlyArray<string>>([])
  const counts = useRef(new Map<string, number>())
  // The metrics whose every value was asked for: read whole from then on.
  const whole = useRef(new Set<string>())
  const [wanted, setWanted] = useState(0)
  const [loaded, setLoaded] = useState(false)
  const readWhole = (name: string) => {
    if (whole.current.has(name)) return
    whole.current.add(name)
    counts.current.delete(name)
    setWanted((n) => n + 1)
  }
  useRepeating(
    async (current) => {
      const latest = await call((c) => c.jobs.metrics({ params: { id } }))
      const names = [...new Set(latest.map((m) => m.name))].sort()
      const totals = await Promise.all(
        names.map((name) => call((c) => c.jobs.metricSnapshots({ params: { id, name }, query: { index: 0, pageLength: 1 } })).then((p) => p.totalNumResults))
      )
      const stale = names.filter((name, i) => counts.current.get(name) !== totals[i])
      if (stale.length === 0) return setLoaded(true)
      const columns = screenColumns()
      const read = await Promise.all(
        stale.map(async (name) => {
          const total = totals[names.indexOf(name)] ?? 0
          const cut = total > wholeUpTo() && !whole.current.has(name)
          return { name, total, points: await readSnapshots(id, name, cut ? columns : undefined) }
        })
      )
      if (!current()) return
      const arrived = performance.now()
      const fresh = new Map(read.map(({ name, points, total }) => [name, { name, points, total, arrived, series: buildSeries([{ name, snapshots: points }]) }]))
      for (const { name, total } of read) counts.current.set(name, total)
      setMetrics((old) => names.map((name) => fresh.get(name) ?? old.find((m) => m.name === name)).filter((m): m is Loaded => m !== undefined))
      setLoaded(true)
    },
    setError,
    [id, live, wanted],
    live ? pollMs : undefined
  )
  const picked = metrics.filter((m) => overlay.includes(m.name))
  const [overlaid, setOverlaid] = useState<{ readonly series: Series; readonly arrived: number } | undefined>(undefined)
  useEffect(() => {
    setOverlaid(picked.length < 2 ? undefined : { series: buildSeries(picked.map((m) => ({ name: m.name, snapshots: m.points }))), arrived: performance.now() })
  }, [metrics, overlay.join("\u0000")])
  return (
    <section aria-label="metrics">
      <h2>Metrics</h2>
      {error !== undefined && <p class="error">{error}</p>}
      {metrics.length === 0 ? (
        <p class="muted">{loaded ? "no metrics posted" : "Loading metrics…"}</p>
      ) : (
        <>
          {metrics.length > 1 && (
            <fieldset class="panel overlay">
              <legend>Overlay</legend>
              <div class="toolbar">
                {metrics.map((m) => (
                  <label class="inline" key={m.name}>
                    <input
                      type="checkbox"
                      data-testid="metric-overlay-pick"
                      value={m.name}
                      checked={overlay.includes(m.name)}
                      onChange={(e) => setOverlay(e.currentTarget.checked ? [...overlay, m.name] : overlay.filter((n) => n !== m.name))}
                    />
                    {m.name}
                  </label>
                ))}
              </div>
              {overlaid === undefined ? <p class="muted">pick two or more metrics to draw them together</p> : <Chart series={overlaid.series} testid="metric-overlay" metric={overlaid.series.names.join(",")} arrived={overlaid.arrived} />}
            </fieldset>
          )}
          <div class="grid">
            {metrics.map((m) => (
              <MetricSection key={m.name} metric={m} readWhole={readWhole} />
            ))}
          </div>
        </>
      )}
    </section>
  )
}
