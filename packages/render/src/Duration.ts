import type { Duration } from "./Wire.ts"

// Go's time.Duration is int64 nanoseconds; durations here keep that range and, for strings, Go's
// ParseDuration grammar, so a value the Go side accepts means the same thing here.

/** The largest Go duration, in nanoseconds. */
export const MAX_DURATION_NANOS = 9_223_372_036_854_775_807n

// A Go duration this long is nonsense; the bound keeps BigInt work small for abusive input.
const MAX_DURATION_CHARS = 64

// The smallest number of seconds beyond Go's range: 2^63 ns is a double, so this division is exact to
// the nearest double, and every double below it is in range.
const BEYOND_GO_SECONDS = Number(MAX_DURATION_NANOS) / 1e9

const beyondGo = (seconds: number): boolean => Math.abs(seconds) >= BEYOND_GO_SECONDS

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
  if (text.length > MAX_DURATION_CHARS) return undefined
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
    // Groups 1 and 3 always take part in a match; BigInt("") is 0n.
    const whole = match[1]!
    const fraction = match[2] ?? ""
    const unit = UNIT_NANOS[match[3]!]
    if (unit === undefined || (whole.length === 0 && fraction.length === 0)) return undefined
    total += BigInt(whole) * unit + (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length)
    if (total > MAX_DURATION_NANOS) return undefined
    rest = rest.slice(match[0].length)
  }
  return negative ? -total : total
}

/** A wire duration as whole units, rounded up; `unitNanos` picks the unit. Undefined when malformed or beyond Go's range. */
const ceilToUnit = (duration: Duration, unitNanos: bigint): number | undefined => {
  if (typeof duration === "number") {
    if (beyondGo(duration)) return undefined
    // Math.ceil of a double is exact, so whole seconds (a factor of 1) round up without float error; `+ 0`
    // turns -0 into 0.
    return Math.ceil(duration * (1_000_000_000 / Number(unitNanos))) + 0
  }
  const nanos = parseGoDuration(duration)
  if (nanos === undefined) return undefined
  // BigInt division truncates towards zero, so only a positive remainder is short of the ceiling.
  const units = nanos / unitNanos
  return Number(units * unitNanos < nanos ? units + 1n : units)
}

/** A wire duration as whole seconds, rounded up (negative stays negative); undefined when malformed. */
export const ceilSeconds = (duration: Duration): number | undefined => ceilToUnit(duration, 1_000_000_000n)

/** A wire duration as whole milliseconds, rounded up; undefined when malformed. */
export const ceilMillis = (duration: Duration): number | undefined => ceilToUnit(duration, 1_000_000n)

/** Whether a wire duration is below zero; undefined when malformed. */
export const isNegative = (duration: Duration): boolean | undefined => {
  if (typeof duration === "number") return beyondGo(duration) ? undefined : duration < 0
  const nanos = parseGoDuration(duration)
  return nanos === undefined ? undefined : nanos < 0n
}
