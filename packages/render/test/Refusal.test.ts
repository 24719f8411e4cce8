import { describe, expect, it } from "vitest"
import { ErrorKinds, refusal } from "../src/Refusal.ts"

describe("Refusal", () => {
  it("names the six kinds of the seed", () => {
    expect(ErrorKinds).toEqual(["ErrInvalid", "ErrUnsupported", "ErrRejected", "ErrUnreachable", "ErrReadOnly", "ErrOutcomeUnknown"])
  })
  it("keeps every reason it is given", () => {
    expect(refusal("ErrInvalid", ["a", "b"])).toEqual({ error: "ErrInvalid", reasons: ["a", "b"] })
  })
})
