// A job's log: every record in the order received, filtered by severity, following new records as they come.
import { useEffect, useRef, useState } from "preact/hooks"
import { call } from "./api.ts"
import { formatTime } from "./format.ts"
import { pollMs, useRepeating } from "./hooks.ts"

const severities = ["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] as const
type Severity = (typeof severities)[number]

/** The most records the page keeps; a longer log shows its first ones and says so. */
const maxLines = 20_000

interface LogLine {
  readonly severity: Severity
  readonly loggerName: string
  readonly message: string
  readonly createdOn: string
}

/** The log of job `id`; while `follow` is on, new records are fetched every few seconds and scrolled to. */
export const Logs = ({ id }: { readonly id: number }) => {
  const [severity, setSeverity] = useState<Severity | "">("")
  const [follow, setFollow] = useState(true)
  const [lines, setLines] = useState<ReadonlyArray<LogLine>>([])
  const [error, setError] = useState<string | undefined>(undefined)
  const box = useRef<HTMLDivElement>(null)
  const kept = useRef<Array<LogLine>>([])
  const filter = useRef<Severity | "">("")
  // A new filter starts the log afresh (this effect runs before the reading below).
  useEffect(() => {
    filter.current = severity
    kept.current = []
    setLines([])
  }, [id, severity])
  useRepeating(
    async (current) => {
      for (;;) {
        const page = await call((c) => c.jobs.log({ params: { id }, query: { index: kept.current.length, pageLength: 100, ...(severity === "" ? {} : { severity }) } }))
        if (!current() || filter.current !== severity) return
        if (page.data.length > 0) {
          kept.current = [...kept.current, ...page.data]
          setLines(kept.current)
        }
        if (page.isComplete || page.data.length === 0 || kept.current.length >= maxLines) return
      }
    },
    setError,
    [id, severity, follow],
    follow ? pollMs : undefined
  )
  useEffect(() => {
    const b = box.current
    if (follow && b !== null) b.scrollTop = b.scrollHeight
  }, [lines, follow])
  return (
    <section class="panel" aria-label="logs">
      <h2>Logs</h2>
      <div class="toolbar">
        <label>
          Severity
          <select data-testid="log-severity" value={severity} onChange={(e) => setSeverity(e.currentTarget.value as Severity | "")}>
            <option value="">all</option>
            {severities.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label class="inline">
          <input type="checkbox" data-testid="log-follow" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} />
          Follow
        </label>
        <span class="muted" aria-live="polite">
          {lines.length} {lines.length === 1 ? "record" : "records"}
          {lines.length >= maxLines ? ` (the first ${maxLines} shown)` : ""}
        </span>
      </div>
      {error !== undefined && <p class="error">{error}</p>}
      <div class="log" ref={box} tabIndex={0} role="log" aria-label="log records">
        {lines.length === 0 ? (
          <span class="muted">no records{severity === "" ? "" : ` of severity ${severity}`}</span>
        ) : (
          lines.map((l, i) => (
            <div key={i} class={`log-line sev-${l.severity}`} data-testid="log-line" data-severity={l.severity}>
              <span class="time">{formatTime(l.createdOn)}</span>
              <span class="sev">{l.severity}</span>
              <span class="logger">{l.loggerName}</span>
              <span class="msg">{l.message}</span>
            </div>
          ))
        )}
      </div>
    </section>
  )
}
