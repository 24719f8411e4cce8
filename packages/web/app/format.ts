// How the app writes times, durations and values: pure, so tests pin them down.

/** A timestamp as a short local-independent text: `2026-11-30 12:00:05` (UTC), or the text as given when it is no date. */
export const formatTime = (iso: string | undefined): string => {
  if (iso === undefined || iso === "") return ""
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`
}

/** How long ago `iso` was at `now` (ms): `just now`, `42 s ago`, `5 min ago`, `3 h ago`, `2 d ago`. */
export const formatAgo = (iso: string | undefined, now: number): string => {
  if (iso === undefined) return ""
  const then = new Date(iso).getTime()
  if (Number.isNaN(then)) return ""
  const s = Math.round((now - then) / 1000)
  if (s < 5) return "just now"
  if (s < 60) return `${s} s ago`
  if (s < 3600) return `${Math.floor(s / 60)} min ago`
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`
  return `${Math.floor(s / 86_400)} d ago`
}

/** A number of seconds as `1 h 2 min 3 s` (largest units first, zero parts left out; `0 s` for zero). */
export const formatSeconds = (seconds: number): string => {
  if (!Number.isFinite(seconds) || seconds < 0) return String(seconds)
  const parts: Array<string> = []
  let left = Math.round(seconds)
  for (const [unit, size] of [["d", 86_400], ["h", 3600], ["min", 60], ["s", 1]] as const) {
    const n = Math.floor(left / size)
    left -= n * size
    if (n > 0) parts.push(`${n} ${unit}`)
  }
  return parts.length === 0 ? "0 s" : parts.join(" ")
}

/** A metric value for reading: finite numbers with up to 6 significant digits, the others as the API spells them. */
export const formatMetric = (value: number | string): string => {
  if (typeof value === "string") return value
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return String(value)
  const rounded = Number(value.toPrecision(6))
  const abs = Math.abs(rounded)
  return abs !== 0 && (abs < 1e-4 || abs >= 1e9) ? rounded.toExponential() : String(rounded)
}

/** Any JSON value as a compact single-line text (strings unquoted). */
export const formatValue = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value) ?? "")
