import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { queryBoolean, queryDuration, queryInt64, queryTime, readQuery } from "../src/http/QueryParams.ts"

// apimachinery's documented rules (k8s.io/apimachinery/pkg/runtime/conversion.go and meta/v1's query
// conversions): only an absent value, "0" and "false" in any case are false, the empty value included
// is true; a repeated key counts by its first value; integers are Go's base-10 int64; times RFC 3339;
// durations Go's time.ParseDuration.
const maxInt64 = 2n ** 63n - 1n
const minInt64 = -maxInt64 - 1n
const falseSpellings = fc.mixedCase(fc.constant("false"))
const notFalse = fc.string().filter((s) => s !== "0" && s.toLowerCase() !== "false")

describe("query booleans", () => {
  test.prop([falseSpellings])("false in any case is false", (text) => {
    expect(queryBoolean(text)).toBe(false)
  })

  it("0 is false, and the empty value is true", () => {
    expect(queryBoolean("0")).toBe(false)
    expect(queryBoolean("")).toBe(true)
    expect(queryBoolean("True")).toBe(true)
    expect(queryBoolean("00")).toBe(true)
  })

  test.prop([notFalse])("every other value is true", (text) => {
    expect(queryBoolean(text)).toBe(true)
  })

  test.prop([fc.array(fc.oneof(falseSpellings, notFalse, fc.constant("0")), { minLength: 1 })])("a repeated key counts by its first value", (values) => {
    const query = new URLSearchParams(values.map((v): [string, string] => ["follow", v]))
    expect(readQuery(query, { follow: "boolean" }).values.follow).toBe(queryBoolean(values[0] ?? ""))
  })

  it("an absent key is left out, not read as false", () => {
    expect(readQuery(new URLSearchParams("other=1"), { follow: "boolean" }).values).toEqual({})
  })
})

describe("query integers", () => {
  test.prop([fc.bigInt({ min: minInt64, max: maxInt64 }), fc.constantFrom("", "+", "0")])("every int64 in decimal reads as itself", (n, prefix) => {
    const text = prefix === "+" && n < 0n ? n.toString() : prefix === "0" ? (n < 0n ? `-0${-n}` : `0${n}`) : `${prefix}${n}`
    expect(queryInt64(text)).toEqual({ value: Number(n) })
  })

  test.prop([fc.oneof(fc.bigInt({ min: maxInt64 + 1n }), fc.bigInt({ max: minInt64 - 1n }))])("beyond int64 is out of range", (n) => {
    expect(queryInt64(n.toString())).toEqual({ error: `strconv.ParseInt: parsing "${n}": value out of range` })
  })

  test.prop([fc.string().filter((s) => !/^[+-]?[0-9]+$/.test(s))])("anything but an optionally signed run of digits is invalid syntax", (text) => {
    expect(queryInt64(text)).toEqual({ error: `strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax` })
  })

  it("reads int64's ends and nothing past them", () => {
    expect(queryInt64("9223372036854775807")).toEqual({ value: Number(maxInt64) })
    expect(queryInt64("-9223372036854775808")).toEqual({ value: Number(minInt64) })
    expect(queryInt64("9223372036854775808")).toEqual({ error: 'strconv.ParseInt: parsing "9223372036854775808": value out of range' })
    expect(queryInt64("-9223372036854775809")).toEqual({ error: 'strconv.ParseInt: parsing "-9223372036854775809": value out of range' })
  })

  it("names the parameter in the problem, and refuses an empty value", () => {
    expect(readQuery(new URLSearchParams("limit=0x10&limit=5"), { limit: "int64" }).problems).toEqual(['limit: strconv.ParseInt: parsing "0x10": invalid syntax'])
    expect(readQuery(new URLSearchParams("limit="), { limit: "int64" }).problems).toEqual(['limit: strconv.ParseInt: parsing "": invalid syntax'])
  })
})

describe("query times", () => {
  const instant = fc.integer({ min: Date.UTC(1, 0, 1), max: Date.UTC(9999, 11, 31) })
  test.prop([instant])("an RFC 3339 UTC time reads as its instant", (ms) => {
    const iso = new Date(ms).toISOString()
    expect(queryTime(iso)).toEqual({ value: ms })
    expect(queryTime(iso.replace(/\.\d+Z$/, "Z"))).toEqual({ value: ms - (ms % 1000 + 1000) % 1000 })
  })

  test.prop([instant.map((ms) => ms - (ms % 1000)), fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 })])("an offset moves the instant", (ms, offset) => {
    const local = new Date(ms + offset * 60_000).toISOString().replace(/\.\d+Z$/, "")
    const sign = offset < 0 ? "-" : "+"
    const hours = String(Math.floor(Math.abs(offset) / 60)).padStart(2, "0")
    const minutes = String(Math.abs(offset) % 60).padStart(2, "0")
    expect(queryTime(`${local}${sign}${hours}:${minutes}`)).toEqual({ value: ms })
  })

  it("reads empty and null as no time, and refuses what RFC 3339 does not allow", () => {
    expect(queryTime("")).toStrictEqual({ value: undefined })
    expect(queryTime("null")).toStrictEqual({ value: undefined })
    expect(queryTime("2024-02-29T23:59:59.5+23:59")).toEqual({ value: Date.UTC(2024, 1, 29, 0, 0, 59, 500) })
    const refused = [
      ...["2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-00-10T00:00:00Z", "2024-01-00T00:00:00Z"],
      ...["2024-01-01T24:00:00Z", "2024-01-01T00:60:00Z", "2024-01-01T00:00:60Z", "2024-01-01T00:00:00+24:00", "2024-01-01T00:00:00+00:60"],
      ...["2024-01-01 00:00:00Z", "2024-01-01T00:00:00", "x2024-01-01T00:00:00Z", "2024-01-01T00:00:00Zx", "yesterday"]
    ]
    for (const bad of refused) {
      expect(queryTime(bad)).toEqual({ error: `parsing time ${JSON.stringify(bad)} as "2006-01-02T15:04:05Z07:00": not an RFC 3339 time` })
    }
  })
})

describe("query durations", () => {
  const units = { h: 3_600_000_000_000n, m: 60_000_000_000n, s: 1_000_000_000n, ms: 1_000_000n, us: 1000n, ns: 1n } as const
  test.prop([fc.array(fc.tuple(fc.constantFrom(...(Object.keys(units) as Array<keyof typeof units>)), fc.integer({ min: 0, max: 1000 })), { minLength: 1, maxLength: 6 }), fc.boolean()])(
    "a sequence of whole numbers with units adds up",
    (parts, negative) => {
      const text = `${negative ? "-" : ""}${parts.map(([unit, n]) => `${n}${unit}`).join("")}`
      const total = parts.reduce((sum, [unit, n]) => sum + BigInt(n) * units[unit], 0n)
      expect(queryDuration(text)).toEqual({ value: Number(negative ? -total : total) })
    }
  )

  it("reads fractions and Go's spellings, and refuses the rest as Go does", () => {
    expect(queryDuration("1.5h")).toEqual({ value: 5_400_000_000_000 })
    expect(queryDuration("1.s")).toEqual({ value: 1_000_000_000 })
    expect(queryDuration(".5s")).toEqual({ value: 500_000_000 })
    expect(queryDuration("0")).toEqual({ value: 0 })
    expect(queryDuration("3µs")).toEqual({ value: 3000 })
    expect(queryDuration("")).toEqual({ error: 'time: invalid duration ""' })
    expect(queryDuration("5")).toEqual({ error: 'time: missing unit in duration "5"' })
    expect(queryDuration("5d")).toEqual({ error: 'time: unknown unit "d" in duration "5d"' })
    expect(queryDuration(".s")).toEqual({ error: 'time: invalid duration ".s"' })
    expect(queryDuration("3000000h")).toEqual({ error: 'time: invalid duration "3000000h"' })
    expect(queryDuration("1h-5m")).toEqual({ error: 'time: unknown unit "h-" in duration "1h-5m"' })
    // int64's ends, and Go's reading of a fraction longer than an int64 holds.
    expect(queryDuration("9223372036854775807ns")).toEqual({ value: Number(maxInt64) })
    expect(queryDuration("9223372036854775808ns")).toEqual({ error: 'time: invalid duration "9223372036854775808ns"' })
    expect(queryDuration("-9223372036854775808ns")).toEqual({ value: Number(minInt64) })
    expect(queryDuration("0.9999999999999999999999s")).toEqual({ value: 1_000_000_000 })
    expect(queryDuration("0.123456789123s")).toEqual({ value: 123_456_789 })
  })
})

describe("readQuery", () => {
  it("leaves out a time that reads as none", () => {
    expect(readQuery(new URLSearchParams("sinceTime=&other=null"), { sinceTime: "time", other: "time" }).values).toStrictEqual({})
  })

  test.prop([fc.array(fc.string(), { minLength: 1 })])("a list-valued option keeps every value in order; a string its first", (values) => {
    const query = new URLSearchParams(values.flatMap((v): Array<[string, string]> => [["dryRun", v], ["fieldManager", v]]))
    expect(readQuery(query, { dryRun: "strings", fieldManager: "string" }).values).toEqual({ dryRun: values, fieldManager: values[0] })
  })
})
