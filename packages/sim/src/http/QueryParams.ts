// Query parameters read as the API server reads them: apimachinery's query conversion turns each key's
// values into one typed option, the same way for every verb, pods/log and watch, whichever client sent
// them (kubectl writes `true`, Python's client `True`). Only the first value of a repeated key counts,
// except for list-valued options (dryRun), which take every value.

/** How one query parameter is read. */
export type ParamType = "string" | "boolean" | "int64" | "time" | "strings"

/** What a parameter of each type reads as. */
export type ParamValue<T extends ParamType> = T extends "boolean"
  ? boolean
  : T extends "int64"
    ? number
    : T extends "time"
      ? number
      : T extends "strings"
        ? ReadonlyArray<string>
        : string

/** The parameters read, each absent key left out, and every value that could not be read. */
export interface QueryRead<S extends Readonly<Record<string, ParamType>>> {
  readonly values: { readonly [K in keyof S]?: ParamValue<S[K]> }
  /** One sentence per parameter that could not be read, as the API server words it (a 400 BadRequest). */
  readonly problems: ReadonlyArray<string>
}

/**
 * A boolean as apimachinery converts one (Convert_Slice_string_To_bool): only "0" and "false" in any
 * case are false; every other value, the empty one included (`?watch`), is true.
 */
export const queryBoolean = (value: string): boolean => !(value === "0" || value.toLowerCase() === "false")

const maxInt64 = 2n ** 63n - 1n

/** A base-10 int64 as Go's strconv.ParseInt(v, 10, 64) reads it, or why it cannot be read. */
export const queryInt64 = (value: string): { readonly value: number } | { readonly error: string } => {
  const syntax = /^[+-]?[0-9]+$/.test(value)
  if (!syntax) return { error: `strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax` }
  const n = BigInt(value)
  if (n > maxInt64 || n < -maxInt64 - 1n) return { error: `strconv.ParseInt: parsing ${JSON.stringify(value)}: value out of range` }
  return { value: Number(n) }
}

const rfc3339Layout = "2006-01-02T15:04:05Z07:00"
const daysIn = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate()

/**
 * A metav1.Time query value (UnmarshalQueryParameter): RFC 3339 with an optional fraction, read as ms since
 * the epoch; "" and "null" are the zero time (undefined).
 */
export const queryTime = (value: string): { readonly value: number | undefined } | { readonly error: string } => {
  if (value === "" || value === "null") return { value: undefined }
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|([+-])(\d{2}):(\d{2}))$/.exec(value)
  const bad = { error: `parsing time ${JSON.stringify(value)} as ${JSON.stringify(rfc3339Layout)}: not an RFC 3339 time` }
  if (match === null) return bad
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number]
  const offsetHours = match[10] === undefined ? 0 : Number(match[10])
  const offsetMinutes = match[11] === undefined ? 0 : Number(match[11])
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return bad
  const fraction = match[7] === undefined ? 0 : Number(`0${match[7]}`) * 1000
  const sign = match[9] === "-" ? -1 : 1
  const utc = Date.UTC(year, month - 1, day, hour, minute, second) + Math.floor(fraction) - sign * (offsetHours * 60 + offsetMinutes) * 60_000
  return { value: utc }
}

const durationUnits: Readonly<Record<string, number>> = { ns: 1, us: 1e3, "µs": 1e3, "μs": 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 }

/**
 * A duration as Go's time.ParseDuration reads one ("1m30s", "250ms", "-1.5h", "0"), in nanoseconds: the
 * API server reads `timeout` so (not through the query conversion, so only `timeout` is one).
 */
export const queryDuration = (value: string): { readonly value: number } | { readonly error: string } => {
  const bad = { error: `time: invalid duration ${JSON.stringify(value)}` }
  const signed = /^[+-]/.test(value)
  const body = signed ? value.slice(1) : value
  if (body === "0") return { value: 0 }
  if (body === "") return bad
  let total = 0n
  let rest = body
  while (rest !== "") {
    // Matches every text (each group may be empty, none is missing): whole digits, a dot, fraction digits, a unit.
    const [part, whole, , fraction, unitText] = /^([0-9]*)(\.?)([0-9]*)([^0-9.]*)/.exec(rest) as unknown as readonly [string, string, string, string, string]
    if (whole === "" && fraction === "") return bad
    if (unitText === "") return { error: `time: missing unit in duration ${JSON.stringify(value)}` }
    const unit = durationUnits[unitText]
    if (unit === undefined) return { error: `time: unknown unit ${JSON.stringify(unitText)} in duration ${JSON.stringify(value)}` }
    // Go keeps the whole part exact and adds the fraction's share of the unit as a float, truncated,
    // reading fraction digits only while they fit in an int64.
    let digits = 0n
    let scale = 1
    for (const digit of fraction) {
      if (digits > maxInt64 / 10n) break
      digits = digits * 10n + BigInt(digit)
      scale *= 10
    }
    total += BigInt(whole) * BigInt(unit) + BigInt(Math.trunc(Number(digits) * (unit / scale)))
    if (total > maxInt64 + (value.startsWith("-") ? 1n : 0n)) return bad
    rest = rest.slice(part.length)
  }
  return { value: Number(value.startsWith("-") ? -total : total) }
}

/** Reads the parameters `spec` names from `query`, each by its type. */
export const readQuery = <S extends Readonly<Record<string, ParamType>>>(query: URLSearchParams, spec: S): QueryRead<S> => {
  const values: Record<string, unknown> = {}
  const problems: Array<string> = []
  for (const name of Object.keys(spec)) {
    const all = query.getAll(name)
    const first = all[0]
    if (first === undefined) continue
    const read = (result: { readonly value: unknown } | { readonly error: string }): void => {
      if ("error" in result) problems.push(`${name}: ${result.error}`)
      else if (result.value !== undefined) values[name] = result.value
    }
    switch (spec[name]) {
      case "string":
        values[name] = first
        break
      case "strings":
        values[name] = all
        break
      case "boolean":
        values[name] = queryBoolean(first)
        break
      case "int64":
        read(queryInt64(first))
        break
      case "time":
        read(queryTime(first))
        break
    }
  }
  return { values: values as QueryRead<S>["values"], problems }
}
