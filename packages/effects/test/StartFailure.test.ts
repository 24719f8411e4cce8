import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect } from "vitest"
import { ErrorKinds } from "@dispatch/render"
import { ClusterError, ClusterErrorReason } from "../src/ClusterError.ts"
import { definiteWriteFailure, errorOfRefusal, readFailure } from "../src/StartFailure.ts"

const clusterError = fc
  .record({
    reason: fc.constantFrom(...ClusterErrorReason.literals),
    code: fc.integer({ min: 400, max: 599 }),
    message: fc.string()
  })
  .map(({ reason, code, message }) => new ClusterError({ reason, call: "create trainjobs default/x", status: { code, reason, message, causes: [] } }))

describe("StartFailure", () => {
  test.prop([fc.constantFrom(...ErrorKinds), fc.array(fc.string(), { maxLength: 5 })])(
    "a refusal becomes the error of its kind, with every reason",
    (kind, reasons) => {
      const error = errorOfRefusal({ error: kind, reasons })
      expect(error._tag).toBe(kind)
      expect(error.reasons).toEqual(reasons)
    }
  )

  test.prop([clusterError])("a failed read is retryable unless it was forbidden, and keeps the call's reasons", (error) => {
    const mapped = readFailure(error)
    expect(mapped._tag).toBe(error.reason === "Forbidden" ? "ErrUnsupported" : "ErrUnreachable")
    expect(mapped.reasons).toEqual(error.reasons)
  })

  test.prop([clusterError])("a definite write failure is read-only when forbidden, retryable for transport and server failures, rejected otherwise", (error) => {
    const expected = {
      Forbidden: "ErrReadOnly",
      Unreachable: "ErrUnreachable",
      ServerError: "ErrUnreachable",
      Unanswered: "ErrUnreachable",
      NotFound: "ErrRejected",
      AlreadyExists: "ErrRejected",
      Conflict: "ErrRejected",
      Invalid: "ErrRejected"
    }[error.reason]
    expect(definiteWriteFailure(error)._tag).toBe(expected)
    expect(definiteWriteFailure(error).reasons).toEqual(error.reasons)
  })
})
