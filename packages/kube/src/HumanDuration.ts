// kubectl's AGE and DURATION columns: apimachinery's duration.HumanDuration, two or three significant
// figures that grow coarser with the duration (`119s`, `3m12s`, `65m`, `3h5m`, `30h`, `2d3h`, `20d`,
// `2y30d`, `9y`), so dispatch's and the simulator's tables read like a real cluster's.

const second = 1000
const minute = 60 * second
const hour = 60 * minute

/** A duration in milliseconds as kubectl prints an age: `<invalid>` for under -1s (clock skew beyond tolerance), `0s` for a small negative, `<unknown>` for no duration (NaN, as from an unreadable timestamp). */
export const humanDuration = (ms: number): string => {
  if (!Number.isFinite(ms)) return "<unknown>"
  // Go converts toward zero: -1.9s is -1 and tolerated as "now"; -2s is not.
  const seconds = Math.trunc(ms / second)
  if (seconds < -1) return "<invalid>"
  if (seconds < 0) return "0s"
  if (seconds < 120) return `${seconds}s`
  const minutes = Math.floor(ms / minute)
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`
  if (minutes < 3 * 60) return `${minutes}m`
  const hours = Math.floor(ms / hour)
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`
  if (hours < 48) return `${hours}h`
  const days = Math.floor(hours / 24)
  if (hours < 8 * 24) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`
  if (hours < 2 * 365 * 24) return `${days}d`
  const years = Math.floor(days / 365)
  if (hours < 8 * 365 * 24) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`
  return `${years}y`
}
