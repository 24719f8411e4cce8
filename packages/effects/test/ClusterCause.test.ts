import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { asPassing, causeOf, ClusterCause, kindOfClusterError, passingCodes } from "../src/ClusterCause.ts"
import { ClusterError, ClusterErrorReason } from "../src/ClusterError.ts"
import { clusterErrorOf } from "../src/StatusMapping.ts"
import {
  ErrInvalid,
  ErrOutcomeUnknown,
  ErrReadOnly,
  ErrRejected,
  ErrUnreachable,
  ErrUnsupported,
  isPassing,
  retryAfterOf,
  StartError
} from "../src/StartErrors.ts"
import { definiteWriteFailure, readFailure } from "../src/StartFailure.ts"

const answered = (code: number, retryAfterMs?: number) =>
  new ClusterError({ ...clusterErrorOf("patch trainingruntimes default/x", code, {}), ...(retryAfterMs === undefined ? {} : { retryAfterMs }) })

const anyCode = fc.integer({ min: 300, max: 599 })
const cause = fc.record(
  { kind: fc.constantFrom("Refused" as const, "Passing" as const), reason: fc.constantFrom(...ClusterErrorReason.literals), code: anyCode, retryAfterMs: fc.nat() },
  { requiredKeys: ["kind", "reason"] }
)

describe("ClusterCause", () => {
  it("passes what was not answered or says 'not now', and refuses what would come again", () => {
    const kindOf = (code: number) => kindOfClusterError(answered(code))
    expect([429, 500, 502, 503, 504, 409].map(kindOf)).toEqual(["Passing", "Passing", "Passing", "Passing", "Passing", "Passing"])
    expect([400, 401, 403, 404, 422, 501, 505, 410].map(kindOf)).toEqual(["Refused", "Refused", "Refused", "Refused", "Refused", "Refused", "Refused", "Refused"])
    expect(kindOfClusterError(clusterErrorOf("create x", 409, { reason: "AlreadyExists" }))).toBe("Refused")
    expect(kindOfClusterError(clusterErrorOf("create x", 403, { message: 'admission webhook "v" denied the request: no' }))).toBe("Refused")
    expect(kindOfClusterError(new ClusterError({ reason: "Unanswered", call: "x" }))).toBe("Passing")
    expect(kindOfClusterError(new ClusterError({ reason: "Unreachable", call: "x", detail: "ECONNREFUSED" }))).toBe("Passing")
    expect(kindOfClusterError(new ClusterError({ reason: "ServerError", call: "x" }))).toBe("Passing")
  })

  test.prop([anyCode, fc.option(fc.nat(), { nil: undefined })])("keeps the reason, the code and the wait of the call", (code, wait) => {
    const error = answered(code, wait)
    const made = causeOf(error)
    expect(made).toEqual({ kind: kindOfClusterError(error), reason: error.reason, code, ...(wait === undefined ? {} : { retryAfterMs: wait }) })
    expect(Schema.decodeUnknownSync(ClusterCause)(made)).toEqual(made)
    expect(causeOf(error, "Refused").kind).toBe("Refused")
    expect(asPassing(made)).toEqual({ ...made, kind: "Passing" })
  })

  it("names exactly the passing codes", () => {
    expect([...passingCodes].sort()).toEqual([429, 500, 502, 503, 504])
  })
})

describe("isPassing and retryAfterOf", () => {
  test.prop([fc.array(fc.string(), { maxLength: 3 }), fc.option(cause, { nil: undefined })])(
    "ErrUnreachable and ErrOutcomeUnknown always pass; the others only with a passing cause; ErrInvalid never",
    (reasons, c) => {
      const withCause = c === undefined ? { reasons } : { reasons, cause: c }
      const passingCause = c?.kind === "Passing"
      expect(isPassing(new ErrUnreachable(withCause))).toBe(true)
      expect(isPassing(new ErrOutcomeUnknown(withCause))).toBe(true)
      expect(isPassing(new ErrRejected(withCause))).toBe(passingCause)
      expect(isPassing(new ErrUnsupported(withCause))).toBe(passingCause)
      expect(isPassing(new ErrReadOnly(withCause))).toBe(passingCause)
      expect(isPassing(new ErrInvalid({ reasons }))).toBe(false)
      for (const error of [new ErrUnreachable(withCause), new ErrRejected(withCause), new ErrOutcomeUnknown(withCause), new ErrUnsupported(withCause), new ErrReadOnly(withCause)]) {
        expect(retryAfterOf(error)).toBe(c?.retryAfterMs)
      }
      expect(retryAfterOf(new ErrInvalid({ reasons }))).toBeUndefined()
    }
  )

  test.prop([fc.array(fc.string(), { maxLength: 3 }), cause])("the cause survives the StartError schema, so a supervisor can store and read it", (reasons, c) => {
    const error = new ErrRejected({ reasons, cause: c })
    const decoded = Schema.decodeUnknownSync(StartError)(Schema.encodeSync(StartError)(error))
    expect(decoded._tag === "ErrRejected" ? decoded.cause : undefined).toEqual(c)
  })

  it("Start's mapping of a failed call carries its cause", () => {
    const busy = answered(503, 2000)
    expect(readFailure(busy)).toMatchObject({ _tag: "ErrUnreachable", cause: { kind: "Passing", reason: "ServerError", code: 503, retryAfterMs: 2000 } })
    expect(readFailure(answered(403))).toMatchObject({ _tag: "ErrUnsupported", cause: { kind: "Refused", reason: "Forbidden", code: 403 } })
    expect(definiteWriteFailure(answered(422))).toMatchObject({ _tag: "ErrRejected", cause: { kind: "Refused", reason: "Invalid", code: 422 } })
    expect(definiteWriteFailure(answered(409))).toMatchObject({ _tag: "ErrRejected", cause: { kind: "Passing", reason: "Conflict", code: 409 } })
    expect(definiteWriteFailure(answered(403))).toMatchObject({ _tag: "ErrReadOnly", cause: { kind: "Refused", reason: "Forbidden" } })
    expect(isPassing(definiteWriteFailure(answered(409)))).toBe(true)
    expect(isPassing(definiteWriteFailure(answered(422)))).toBe(false)
  })
})
