// The array literals a report batch's insert sends, read back by each store exactly as written: any text (quotes,
// backslashes, commas, braces, white space, the word NULL, any Unicode a store holds) and NULL, integers and doubles.
import { fc, test as property } from "@fast-check/vitest"
import { describe, expect, test } from "vitest"
import { numberArrayLiteral, textArrayLiteral } from "../src/store/ArrayLiteral.ts"
import { backends } from "./Service.ts"
import { openEmptyPglite, openPostgres, useDatabase } from "./TestDatabase.ts"

// Texts a store can hold (no NUL, no unpaired surrogate), weighted towards what an array literal must escape.
const text = fc.oneof(
  fc.string({ unit: fc.constantFrom('"', "\\", ",", "{", "}", " ", "\t", "\n", "'", "N", "U", "L", "a", "é", "💡") }),
  fc.constantFrom("NULL", "null", "", " ", '""', "\\\\", "{}", "{a,b}"),
  fc.string({ unit: "grapheme" })
).filter((t) => !t.includes("\u0000"))

describe.each(backends)("array literals read back by %s", (backend) => {
  const opened = useDatabase(backend, (url) => (url === undefined ? openEmptyPglite() : openPostgres(url, 2)))
  const read = async (literal: string, type: string) => {
    const [row] = await opened().query<{ a: ReadonlyArray<unknown> }>(`select $1::${type} as a`, [literal])
    return row?.a
  }

  property.prop([fc.array(fc.option(text, { nil: null }), { maxLength: 20 })], { numRuns: 60 })("texts and NULLs, in order", async (values) => {
    expect(await read(textArrayLiteral(values), "text[]")).toEqual(values)
  })

  property.prop([fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 20 })], { numRuns: 30 })("integers", async (values) => {
    expect(await read(numberArrayLiteral(values), "int[]")).toEqual(values)
  })

  // Minus zero is written as zero, as node-postgres writes it.
  property.prop([fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => (d === 0 ? 0 : d)), { maxLength: 20 })], { numRuns: 60 })(
    "finite doubles, exactly",
    async (values) => {
      expect(await read(numberArrayLiteral(values), "float8[]")).toEqual(values)
    }
  )

  test("ISO-8601 times as timestamptz, and the empty arrays", async () => {
    const times = ["2026-01-01T00:00:00.000Z", "0001-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z"]
    // Read as milliseconds since 1970 (the drivers' own reading of a year before 100 is not the point here).
    const [row] = await opened().query<{ a: ReadonlyArray<number> }>(`select array(select (extract(epoch from t) * 1000)::float8 from unnest($1::timestamptz[]) t) as a`, [
      textArrayLiteral(times)
    ])
    expect(row?.a).toEqual(times.map((t) => Date.parse(t)))
    expect(await read(textArrayLiteral([]), "text[]")).toEqual([])
    expect(await read(numberArrayLiteral([]), "float8[]")).toEqual([])
  })
})
