// The parts of an HTTP exchange that KubeCluster's errors are built from: which codes are failures, and
// where a failure's Retry-After is among undici's raw headers.
import { describe, expect, it } from "vitest"
import { isFailureCode, retryAfterIn } from "../src/KeepAliveHttp.ts"

describe("KeepAliveHttp", () => {
  it("a failure is any code outside 200-299", () => {
    expect([199, 200, 204, 299, 300, 429, 503].map(isFailureCode)).toEqual([true, false, false, false, true, true, true])
  })

  it("finds Retry-After among raw headers whatever its case, as text, and nothing where there is none", () => {
    const raw = (...pairs: ReadonlyArray<string>) => pairs.map((p) => Buffer.from(p))
    expect(retryAfterIn(raw("content-type", "application/json", "Retry-After", "7"))).toBe("7")
    expect(retryAfterIn(raw("RETRY-AFTER", "12", "content-type", "text/plain"))).toBe("12")
    expect(retryAfterIn(["retry-after", "3"])).toBe("3")
    expect(retryAfterIn(raw("content-type", "application/json"))).toBeUndefined()
    // A value is never read as a name: only names (even positions) are compared.
    expect(retryAfterIn(raw("x-note", "retry-after", "content-type", "text/plain"))).toBeUndefined()
    // A name without its value (a truncated list) is not read past the end.
    expect(retryAfterIn(raw("content-type", "text/plain", "retry-after"))).toBeUndefined()
    expect(retryAfterIn(null)).toBeUndefined()
    expect(retryAfterIn(undefined)).toBeUndefined()
    expect(retryAfterIn([])).toBeUndefined()
  })
})
