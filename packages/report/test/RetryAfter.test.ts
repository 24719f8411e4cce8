// Retry-After read as RFC 9110 says: seconds, or an HTTP date in any of its three forms; anything else is no advice.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { httpDateMs, retryAfterMs } from "../src/RetryAfter.ts"

const now = Date.UTC(2026, 11, 7, 12, 0, 0)
// Whole seconds, years 1970 to 9999, as HTTP dates carry them.
const wholeSecond = fc.integer({ min: 0, max: Math.floor(Date.UTC(9999, 11, 31, 23, 59, 59) / 1000) }).map((s) => s * 1000)
const days = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
const pad = (n: number) => String(n).padStart(2, "0")
const rfc850 = (ms: number) => {
  const d = new Date(ms)
  const [, , month] = d.toUTCString().split(" ")
  return `${days[d.getUTCDay()]}, ${pad(d.getUTCDate())}-${month}-${pad(d.getUTCFullYear() % 100)} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} GMT`
}
const asctime = (ms: number) => {
  const d = new Date(ms)
  const [day, , month] = d.toUTCString().split(" ")
  return `${(day ?? "").slice(0, 3)} ${month} ${String(d.getUTCDate()).padStart(2, " ")} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} ${d.getUTCFullYear()}`
}

describe("retryAfterMs", () => {
  test.prop([fc.nat({ max: 10_000_000 }), fc.constantFrom("", " ", "\t")])("a number of seconds is that many seconds, blanks around it ignored", (seconds, blank) => {
    expect(retryAfterMs(`${blank}${seconds}${blank}`, now)).toBe(seconds * 1000)
  })

  test.prop([wholeSecond])("an IMF-fixdate is the time until it, or 0 when it is past", (at) => {
    const text = new Date(at).toUTCString()
    expect(httpDateMs(text)).toBe(at)
    expect(retryAfterMs(text, now)).toBe(Math.max(0, at - now))
  })

  test.prop([wholeSecond.filter((at) => new Date(at).getUTCFullYear() >= 1000)])("asctime's form names the same time", (at) => {
    expect(httpDateMs(asctime(at))).toBe(at)
  })

  test.prop([fc.integer({ min: -49, max: 49 }).map((years) => Date.UTC(new Date().getUTCFullYear() + years, 5, 15, 8, 30, 1))])(
    "RFC 850's form, its two-digit year within 50 years of now, names the same time",
    (at) => {
      expect(httpDateMs(rfc850(at))).toBe(at)
    }
  )

  test.prop([fc.string()])("any other text is either no advice or a wait from 0", (text) => {
    const ms = retryAfterMs(text, now)
    if (ms !== undefined) expect(ms).toBeGreaterThanOrEqual(0)
  })

  it("is no advice for what is neither", () => {
    for (const text of ["", "-1", "1.5", "soon", "0x10", "Sun, 31 Feb 2026 00:00:00 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:49:37 UTC", "2026-12-07T12:00:00Z"]) {
      expect(retryAfterMs(text, now), text).toBeUndefined()
    }
    expect(retryAfterMs(undefined, now)).toBeUndefined()
  })

  it("refuses a minute past 59 and a second past 60, reading a leap second as the second before it", () => {
    expect(httpDateMs("Sun, 06 Nov 1994 08:60:00 GMT")).toBeUndefined()
    expect(httpDateMs("Sun, 06 Nov 1994 08:49:61 GMT")).toBeUndefined()
    expect(httpDateMs("Sun, 06 Nov 1994 08:49:60 GMT")).toBe(Date.UTC(1994, 10, 6, 8, 49, 59))
    expect(httpDateMs("Sun, 00 Nov 1994 08:49:37 GMT")).toBeUndefined()
    expect(httpDateMs("Sun, 32 Nov 1994 08:49:37 GMT")).toBeUndefined()
  })

  it("reads RFC 850's two-digit year as within 50 years ahead of now, else the century before", () => {
    const thisYear = new Date().getUTCFullYear()
    const ahead = Date.UTC(thisYear + 50, 0, 1, 0, 0, 0)
    expect(httpDateMs(rfc850(ahead))).toBe(ahead)
    const past = Date.UTC(thisYear + 51 - 100, 0, 1, 0, 0, 0)
    expect(httpDateMs(rfc850(Date.UTC(thisYear + 51, 0, 1, 0, 0, 0)))).toBe(past)
  })

  it("reads RFC 9110's own examples", () => {
    expect(httpDateMs("Sun, 06 Nov 1994 08:49:37 GMT")).toBe(Date.UTC(1994, 10, 6, 8, 49, 37))
    expect(httpDateMs("Sun Nov  6 08:49:37 1994")).toBe(Date.UTC(1994, 10, 6, 8, 49, 37))
    expect(retryAfterMs("120", now)).toBe(120_000)
    expect(retryAfterMs("Mon, 07 Dec 2026 12:00:05 GMT", now)).toBe(5000)
  })
})
