import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { ErrorKinds, MAX_REASONS, cappedRefusal, refusal } from "../src/Refusal.ts"

describe("Refusal", () => {
  it("names the six kinds of the seed", () => {
    expect(ErrorKinds).toEqual(["ErrInvalid", "ErrUnsupported", "ErrRejected", "ErrUnreachable", "ErrReadOnly", "ErrOutcomeUnknown"])
  })
  it("keeps every reason it is given", () => {
    expect(refusal("ErrInvalid", ["a", "b"])).toEqual({ error: "ErrInvalid", reasons: ["a", "b"] })
  })
  test.prop([fc.constantFrom(...ErrorKinds), fc.array(fc.string(), { maxLength: 3 * MAX_REASONS })])(
    "cappedRefusal keeps the first MAX_REASONS reasons and counts the rest",
    (kind, reasons) => {
      const r = cappedRefusal(kind, reasons)
      expect(r.error).toBe(kind)
      if (reasons.length <= MAX_REASONS) expect(r.reasons).toEqual(reasons)
      else expect(r.reasons).toEqual([...reasons.slice(0, MAX_REASONS), `... and ${reasons.length - MAX_REASONS} more`])
    }
  )
})
