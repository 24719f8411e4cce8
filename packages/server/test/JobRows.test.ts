// A stored row is decoded with its schema: one that does not decode (written past the API) is a defect naming the row,
// each field, and what it held (UnreadableRows.test.ts shows how the API answers such a job).
import { Cause, Effect, Exit, Schema } from "effect"
import { describe, expect, test } from "vitest"
import { StoredNumber } from "../src/store/DispatchRows.ts"
import { decodeRows, UnreadableRow } from "../src/store/UnreadableRow.ts"

describe("decoding stored rows", () => {
  test("a row that does not decode is an UnreadableRow defect naming the row, each field and the kind of value it held", async () => {
    const exit = await Effect.runPromiseExit(decodeRows(Schema.Struct({ id: Schema.Number, description: Schema.String }), "job 7")([{ id: 7, description: 1n }]))
    expect(Exit.isFailure(exit)).toBe(true)
    const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
    expect(defect).toBeInstanceOf(UnreadableRow)
    expect(String((defect as Error).message)).toMatch(/^job 7 is stored in a form the service cannot read: .*BigInt.*description/)
  })

  test("a missing value is named as null, and each row's problem by its place", async () => {
    const exit = await Effect.runPromiseExit(decodeRows(Schema.Struct({ description: Schema.String }), "job 8")([{ description: "fine" }, { description: null }]))
    const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
    expect(defect).toBeInstanceOf(UnreadableRow)
    expect((defect as UnreadableRow).problems).toEqual(['Expected string, got null (a null) at [1,"description"]'])
  })

  test("every problem of every row is named, a missing field as missing", async () => {
    const exit = await Effect.runPromiseExit(decodeRows(Schema.Struct({ a: Schema.String, b: Schema.Number }), "job 9")([{ b: "x" }]))
    const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
    expect(defect).toBeInstanceOf(UnreadableRow)
    expect((defect as UnreadableRow).problems).toEqual(['Missing key at [0,"a"]', 'Expected number, got "x" (a String) at [0,"b"]'])
    expect((defect as UnreadableRow).message).toBe('job 9 is stored in a form the service cannot read: Missing key at [0,"a"]; Expected number, got "x" (a String) at [0,"b"]')
  })

  test("rows that decode are answered as decoded, in order", async () => {
    const rows = await Effect.runPromise(decodeRows(Schema.Struct({ n: StoredNumber }), "a row")([{ n: 1 }, { n: "2.5" }]))
    expect(rows).toEqual([{ n: 1 }, { n: 2.5 }])
  })

  test("a stored number is a finite number or its text, nothing else", () => {
    const decode = Schema.decodeUnknownOption(StoredNumber)
    expect([decode(3), decode("3"), decode("-0.5")].map((o) => o._tag === "Some" && o.value)).toEqual([3, 3, -0.5])
    expect(decode("three")._tag).toBe("None")
    expect(decode(null)._tag).toBe("None")
    expect(decode(Number.NaN)._tag).toBe("None")
    expect(decode("Infinity")._tag).toBe("None")
  })
})
