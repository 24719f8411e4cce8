// A TrainJob's state by Trainer's fields, and metav1.Condition reads.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { conditionOf, isConditionTrue } from "../src/Conditions.ts"
import { hasActivePods, trainJobState } from "../src/TrainJobState.ts"

const condition = (type: string, status: string, reason = "", message = "") => ({ type, status, reason, message })
const trainJob = (fields: { conditions?: ReadonlyArray<unknown>; suspend?: unknown; jobsStatus?: ReadonlyArray<unknown> }) => ({
  apiVersion: "trainer.kubeflow.org/v1alpha1",
  kind: "TrainJob",
  metadata: { name: "j" },
  spec: fields.suspend === undefined ? {} : { suspend: fields.suspend },
  status: { conditions: fields.conditions ?? [], jobsStatus: fields.jobsStatus ?? [] }
})

describe("conditions", () => {
  it("conditionOf finds a condition by type, with empty strings for missing fields; isConditionTrue wants status True", () => {
    const job = { status: { conditions: [{ type: "Complete" }, condition("Failed", "True", "DeadlineExceeded", "too long"), "junk"] } }
    expect(conditionOf(job, "Complete")).toEqual({ status: "", reason: "", message: "" })
    expect(conditionOf(job, "Failed")).toEqual({ status: "True", reason: "DeadlineExceeded", message: "too long" })
    expect(conditionOf(job, "Suspended")).toBeUndefined()
    expect(conditionOf({ status: { conditions: "no" } }, "Failed")).toBeUndefined()
    expect(isConditionTrue(job, "Failed")).toBe(true)
    expect(isConditionTrue(job, "Complete")).toBe(false)
    expect(isConditionTrue(job, "Suspended")).toBe(false)
  })
})

describe("trainJobState", () => {
  it("reads Trainer's fields", () => {
    expect(trainJobState(trainJob({}))).toEqual({ state: "Pending" })
    expect(trainJobState(trainJob({ suspend: true, jobsStatus: [{ name: "node", active: 1 }] }))).toEqual({ state: "Suspended" })
    expect(trainJobState(trainJob({ suspend: false, jobsStatus: [{ name: "node", active: 1 }] }))).toEqual({ state: "Running" })
    expect(trainJobState(trainJob({ jobsStatus: [{ name: "node", active: 0, ready: 2 }] }))).toEqual({ state: "Running" })
    expect(trainJobState(trainJob({ jobsStatus: [{ name: "node", active: "1" }] }))).toEqual({ state: "Pending" })
    expect(trainJobState(trainJob({ jobsStatus: [{ name: "node", ready: "2" }] }))).toEqual({ state: "Pending" })
    expect(trainJobState(trainJob({ jobsStatus: [{ name: "node", active: 0, ready: 0 }] }))).toEqual({ state: "Pending" })
    expect(trainJobState(trainJob({ jobsStatus: [{ name: "node", active: 0 }, { name: "init", ready: 1 }] }))).toEqual({ state: "Running" })
    expect(trainJobState(trainJob({ conditions: [condition("Complete", "True", "AllJobsCompleted")], suspend: true }))).toEqual({ state: "Complete", reason: "AllJobsCompleted" })
    expect(trainJobState(trainJob({ conditions: [condition("Failed", "True", "BackoffLimitExceeded", "pod failed")] }))).toEqual({
      state: "Failed",
      reason: "BackoffLimitExceeded",
      message: "pod failed"
    })
    expect(trainJobState(trainJob({ conditions: [condition("Failed", "True"), condition("Complete", "True", "AllJobsCompleted")] }))).toEqual({ state: "Complete", reason: "AllJobsCompleted" })
    expect(trainJobState(trainJob({ conditions: [condition("Failed", "False"), condition("Complete", "False")] }))).toEqual({ state: "Pending" })
    expect(trainJobState(undefined)).toEqual({ state: "Pending" })
  })

  const status = fc.constantFrom("True", "False", "Unknown")
  const job = fc.record({
    conditions: fc.array(fc.record({ type: fc.constantFrom("Failed", "Complete", "Suspended", "Created"), status }), { maxLength: 4 }),
    suspend: fc.constantFrom(true, false, undefined, "true"),
    jobsStatus: fc.array(fc.record({ active: fc.oneof(fc.nat(2), fc.constant("1")), ready: fc.nat(2) }), { maxLength: 3 })
  })

  test.prop([job])("finished beats suspended beats running beats pending", (fields) => {
    const j = trainJob(fields)
    const state = trainJobState(j).state
    const finished = isConditionTrue(j, "Failed") || isConditionTrue(j, "Complete")
    if (isConditionTrue(j, "Complete")) expect(state).toBe("Complete")
    else if (finished) expect(state).toBe("Failed")
    else if (fields.suspend === true) expect(state).toBe("Suspended")
    else expect(state).toBe(hasActivePods(j) ? "Running" : "Pending")
  })
})
