// The checks that keep a record the service would refuse out of a batch, and the records' wire form, read back as
// JSON and checked against the service's own rules (@dispatch/jobs).
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
// The service's own rules, read from its source: this package depends on none.
import { isMetricName as serviceTakesName } from "../../jobs/src/Metric.ts"
import { textFlaw } from "../../jobs/src/Text.ts"
import { encodeRecord, isMetricName, maxName, severityOf, stepOf, storable, valueOf, wireValue } from "../src/WireRecord.ts"

const nameLike = fc.oneof(fc.string({ maxLength: 300 }), fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,300}$/), fc.constantFrom("_", "a", "9a", "a-b", "é"))

describe("the record checks", () => {
  test.prop([nameLike])("a metric name is taken exactly when the service takes it (its grammar, at most 255 characters)", (name) => {
    expect(isMetricName(name)).toBe(serviceTakesName(name) && name.length <= maxName)
  })

  test.prop([fc.string({ unit: "binary", maxLength: 60 }), fc.integer({ min: 0, max: 40 })])(
    "storable text is at most the limit, storable by the service, and unchanged when it already was",
    (text, limit) => {
      const kept = storable(text, limit)
      expect(kept.length).toBeLessThanOrEqual(limit)
      expect(textFlaw(kept)).toBeUndefined()
      if (text.length <= limit && textFlaw(text) === undefined) expect(kept).toBe(text)
    }
  )

  test.prop([fc.oneof(fc.integer(), fc.double(), fc.bigInt(), fc.constantFrom(undefined, null, "1", 1.5, -1))])(
    "a step is a whole number from 0 to 2^53 - 1 (0 when absent), as the service takes it",
    (step) => {
      const taken = stepOf(step)
      if (step === undefined || step === null) expect(taken).toBe(0)
      else if (taken !== undefined) {
        expect(Number.isSafeInteger(taken) && taken >= 0).toBe(true)
        expect(BigInt(taken)).toBe(BigInt(step as number | bigint))
      } else if (typeof step === "number") expect(!Number.isSafeInteger(step) || step < 0).toBe(true)
      else if (typeof step === "bigint") expect(step < 0n || step > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true)
      else expect(typeof step).toBe("string")
    }
  )

  it("takes a name of 255 characters, not 256, and only a string", () => {
    expect(isMetricName("a".repeat(255))).toBe(true)
    expect(isMetricName("a".repeat(256))).toBe(false)
    expect([["abc"], 5, undefined, null].map(isMetricName)).toEqual([false, false, false, false])
  })

  it("writes NaN and the infinities as the wire's words", () => {
    expect([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 1.5].map(wireValue)).toEqual(['"nan"', '"inf"', '"-inf"', "0", "1.5"])
  })

  it("replaces NUL and lone surrogates, and cuts at the limit", () => {
    expect(storable("a\uD800b\u0000c\uDC00", 100)).toBe("a\uFFFDb\uFFFDc\uFFFD")
    expect(storable("\uD83D\uDE00", 100)).toBe("\uD83D\uDE00")
    // A cut through a pair leaves half of it, which is replaced.
    expect(storable("x\uD83D\uDE00", 2)).toBe("x\uFFFD")
  })

  it("refuses steps and values that are not numbers", () => {
    expect([-1, 1.5, Number.NaN, 2 ** 53, "1", -1n, 2n ** 53n].map(stepOf)).toEqual([undefined, undefined, undefined, undefined, undefined, undefined, undefined])
    expect([0, 7, 2 ** 53 - 1, 3n, 0n, 2n ** 53n - 1n].map(stepOf)).toEqual([0, 7, 2 ** 53 - 1, 3, 0, 2 ** 53 - 1])
    expect([1, Number.NaN, 2n, "1", null, {}].map(valueOf)).toEqual([1, Number.NaN, 2, undefined, undefined, undefined])
  })

  it("reads levels as names in any case, Python's aliases, or Python's logging numbers", () => {
    expect(["debug", "Info", "WARNING", "warn", "error", "critical", "fatal", "LOUD", ""].map(severityOf)).toEqual([
      "DEBUG",
      "INFO",
      "WARNING",
      "WARNING",
      "ERROR",
      "CRITICAL",
      "CRITICAL",
      undefined,
      undefined
    ])
    expect([null, {}, true, undefined].map(severityOf)).toEqual([undefined, undefined, undefined, undefined])
    expect([0, 10, 19, 20, 29, 30, 40, 49, 50, 1000, Number.NaN].map(severityOf)).toEqual([
      "DEBUG",
      "DEBUG",
      "DEBUG",
      "INFO",
      "INFO",
      "WARNING",
      "ERROR",
      "ERROR",
      "CRITICAL",
      "CRITICAL",
      undefined
    ])
  })
})

describe("the wire form", () => {
  test.prop([fc.double()])("a value is a JSON number, or nan, inf, -inf as Dioptra's wire writes them", (value) => {
    const read = JSON.parse(wireValue(value)) as unknown
    if (Number.isFinite(value)) expect(read).toBe(value === 0 ? 0 : value)
    else expect(read).toBe(Number.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf")
  })

  test.prop([
    fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,20}$/),
    fc.double(),
    fc.nat(),
    fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59.999Z"), noInvalidDate: true }),
    fc.string({ maxLength: 40 })
  ])("a record is one JSON object with its fields and its time as toISOString writes it", (name, value, step, date, message) => {
    const at = date.getTime()
    expect(JSON.parse(encodeRecord({ kind: "metric", name, value, step, at }))).toEqual({ name, value: JSON.parse(wireValue(value)), step, timestamp: date.toISOString() })
    const text = storable(message, 100)
    expect(JSON.parse(encodeRecord({ kind: "log", severity: "INFO", loggerName: name, message: text, at }))).toEqual({
      severity: "INFO",
      loggerName: name,
      message: text,
      timestamp: date.toISOString()
    })
  })
})
