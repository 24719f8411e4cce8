import type { Duration } from "./Wire.ts"

// Go's time.Duration is int64 nanoseconds; durations here keep that range and, for strings, Go's
// ParseDuration grammar, so a value the Go side accepts means the same thing here.

/** The largest Go duration, in nanoseconds. */
export const MAX_DURATION_NANOS = 9_223_372_036_854_775_807n

// A Go duration this long is nonsense; the bound keeps BigInt work small for abusive input.
const MAX_DURATION_CHARS = 64

const UNIT_NANOS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  "\u00b5s": 1_000n,
  "\u03bcs": 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n
}

const COMPONENT = /^(\d*)(?:\.(\d*))?([^\d.]+)/

/** Parses a Go duration string (`"1h30m"`, `"1.5s"`, `"-2m"`) into nanoseconds; undefined when malformed or out of range. */
export const parseGoDuration = (text: string): bigint | undefined => {
  if (text.length === 0 || text.length > MAX_DURATION_CHARS) return undefined
  let rest = text
  let negative = false
  if (rest[0] === "-" || rest[0] === "+") {
    negative = rest[0] === "-"
    rest = rest.slice(1)
  }
  if (rest === "0") return 0n
  if (rest.length === 0) return undefined
  let total = 0n
  while (rest.length > 0) {
    const match = COMPONENT.exec(rest)
    if (match === null) return undefined
    const whole = match[1] ?? ""
    const fraction = match[2] ?? ""
    const unit = UNIT_NANOS[match[3] ?? ""]
    if (unit === undefined || (whole.length === 0 && fraction.length === 0)) return undefined
    total += BigInt(whole === "" ? "0" : whole) * unit
    if (fraction.length > 0) total += (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length)
    if (total > MAX_DURATION_NANOS) return undefined
    rest = rest.slice(match[0].length)
  }
  return negative ? -total : total
}

/** A wire duration as whole units, rounded up; `unitNanos` picks the unit. Undefined when malformed or beyond Go's range. */
const ceilToUnit = (duration: Duration, unitNanos: bigint): number | undefined => {
  if (typeof duration === "number") {
    const unitsPerSecond = 1_000_000_000 / Number(unitNanos)
    if (Math.abs(duration) > Number(MAX_DURATION_NANOS) / 1e9) return undefined
    // Math.ceil of a double is exact, so whole seconds round up without float error.
    return unitsPerSecond === 1 ? Math.ceil(duration) + 0 : Math.ceil(duration * unitsPerSecond) + 0
  }
  const nanos = parseGoDuration(duration)
  if (nanos === undefined) return undefined
  const units = nanos / unitNanos
  return Number(nanos > 0n && units * unitNanos !== nanos ? units + 1n : units)
}

/** A wire duration as whole seconds, rounded up (negative stays negative); undefined when malformed. */
export const ceilSeconds = (duration: Duration): number | undefined => ceilToUnit(duration, 1_000_000_000n)

/** A wire duration as whole milliseconds, rounded up; undefined when malformed. */
export const ceilMillis = (duration: Duration): number | undefined => ceilToUnit(duration, 1_000_000n)

/** Whether a wire duration is below zero; undefined when malformed. */
export const isNegative = (duration: Duration): boolean | undefined => {
  if (typeof duration === "number") return Math.abs(duration) > Number(MAX_DURATION_NANOS) / 1e9 ? undefined : duration < 0
  const nanos = parseGoDuration(duration)
  return nanos === undefined ? undefined : nanos < 0n
}
