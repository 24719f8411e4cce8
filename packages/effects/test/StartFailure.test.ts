import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { ErrorKinds } from "@dispatch/render"
import { ClusterError, ClusterErrorReason } from "../src/ClusterError.ts"
import { ErrRejected, ErrUnreachable, ErrUnsupported, isPassing } from "../src/StartErrors.ts"
import { definiteWriteFailure, errorOfRefusal, readFailure, refusalDespiteUnreadFrozen } from "../src/StartFailure.ts"

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

  test.prop([fc.boolean(), fc.array(fc.string(), { minLength: 1, maxLength: 3 }), clusterError])(
    "a refusal whose frozen-runtime read failed keeps its class, reasons and reference, adds the read's reasons, and passes exactly when the read did",
    (unsupported, reasons, readError) => {
      const ref = { namespace: "default", name: "dj-x-s1" }
      const refused = unsupported ? new ErrUnsupported({ reasons }) : new ErrRejected({ reasons, ref })
      const read = readFailure(readError)
      const kept = refusalDespiteUnreadFrozen(refused, read)
      expect(kept._tag).toBe(refused._tag)
      expect(kept.reasons.slice(0, reasons.length)).toEqual(reasons)
      expect(kept.reasons).toHaveLength(reasons.length + read.reasons.length)
      for (const [i, r] of read.reasons.entries()) expect(kept.reasons[reasons.length + i]).toContain(r)
      if (kept._tag === "ErrRejected") expect(kept.ref).toEqual(ref)
      expect(isPassing(kept)).toBe(isPassing(read))
      expect(kept.cause).toEqual(isPassing(read) ? { ...(read as ErrUnsupported).cause, kind: "Passing" } : undefined)
    }
  )

  it("a passing read failure without a cause of its own still makes the refusal's cause passing", () => {
    const kept = refusalDespiteUnreadFrozen(new ErrUnsupported({ reasons: ["torch: does not exist"] }), new ErrUnreachable({ reasons: ["get x: Unreachable"] }))
    expect(kept._tag).toBe("ErrUnsupported")
    expect(kept.cause).toEqual({ kind: "Passing", reason: "Unreachable" })
    const ref = { namespace: "default", name: "dj-x-s1" }
    const rejected = refusalDespiteUnreadFrozen(new ErrRejected({ reasons: ["the copy differs"], ref }), new ErrUnreachable({ reasons: ["get x: Unreachable"] }))
    expect(rejected).toMatchObject({ _tag: "ErrRejected", ref, cause: { kind: "Passing" } })
    expect("ref" in refusalDespiteUnreadFrozen(new ErrRejected({ reasons: ["the copy differs"] }), new ErrUnreachable({ reasons: [] }))).toBe(false)
    expect(kept.reasons).toEqual(["torch: does not exist", "the job's frozen runtime could not be read, so this may change on retry: get x: Unreachable"])
    const refusedRead = refusalDespiteUnreadFrozen(new ErrUnsupported({ reasons: ["torch: does not exist"] }), readFailure(new ClusterError({ reason: "Forbidden", call: "get x" })))
    expect(refusedRead.reasons).toEqual(["torch: does not exist", "the job's frozen runtime could not be read: get x: Forbidden"])
    expect(refusedRead.cause).toBeUndefined()
  })
})
