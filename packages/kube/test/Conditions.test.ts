// Reading metav1.Conditions off untyped objects: the condition of a type, with "" for what it lacks, and
// whether it is True (only the exact word; kubectl and the controllers compare it so).
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { conditionOf, isConditionTrue } from "../src/Conditions.ts"

const withConditions = (conditions: unknown): unknown => ({ status: { conditions } })

describe("conditionOf", () => {
  const job = withConditions([
    { type: "Suspended", status: "False", reason: "Resumed", message: "the job was resumed" },
    { type: "Complete", status: "True", reason: "CompletionsReached", message: "Reached expected number of succeeded pods", lastTransitionTime: "2026-01-01T00:00:00Z" }
  ])

  it("finds the condition of the type, with its status, reason and message", () => {
    expect(conditionOf(job, "Complete")).toEqual({ status: "True", reason: "CompletionsReached", message: "Reached expected number of succeeded pods" })
    expect(conditionOf(job, "Suspended")).toEqual({ status: "False", reason: "Resumed", message: "the job was resumed" })
  })

  it("is undefined for a type that is not there, and for objects without conditions", () => {
    expect(conditionOf(job, "Failed")).toBeUndefined()
    expect(conditionOf(job, "complete")).toBeUndefined()
    for (const object of [undefined, null, 7, "Complete", {}, { status: {} }, { status: { conditions: "Complete" } }, withConditions({ type: "Complete" })]) {
      expect(conditionOf(object, "Complete")).toBeUndefined()
    }
  })

  it("gives \"\" for a missing or non-string status, reason or message", () => {
    expect(conditionOf(withConditions([{ type: "Ready" }]), "Ready")).toEqual({ status: "", reason: "", message: "" })
    expect(conditionOf(withConditions([{ type: "Ready", status: true, reason: 1, message: null }]), "Ready")).toEqual({ status: "", reason: "", message: "" })
  })

  it("takes the first of two conditions of one type, and skips entries that are not conditions", () => {
    const twice = withConditions([null, "Ready", { type: "Ready", status: "False" }, { type: "Ready", status: "True" }])
    expect(conditionOf(twice, "Ready")?.status).toBe("False")
  })
})

describe("isConditionTrue", () => {
  it("holds only for status True, exactly", () => {
    expect(isConditionTrue(withConditions([{ type: "Complete", status: "True" }]), "Complete")).toBe(true)
    for (const status of ["False", "Unknown", "true", "TRUE", "", undefined]) {
      expect(isConditionTrue(withConditions([{ type: "Complete", status }]), "Complete")).toBe(false)
    }
    expect(isConditionTrue(withConditions([{ type: "Failed", status: "True" }]), "Complete")).toBe(false)
    expect(isConditionTrue({}, "Complete")).toBe(false)
  })

  test.prop([fc.constantFrom("A", "B", "C"), fc.array(fc.record({ type: fc.constantFrom("A", "B"), status: fc.constantFrom("True", "False", "Unknown") }))])(
    "agrees with the first condition of the type",
    (type, conditions) => {
      const first = conditions.find((c) => c.type === type)
      expect(isConditionTrue(withConditions(conditions), type)).toBe(first?.status === "True")
      expect(conditionOf(withConditions(conditions), type)?.status).toBe(first?.status)
    }
  )
})
