import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { KubeObject } from "../src/Api.ts"
import { isFinished, printedTrainJobState, trainJobState } from "../src/kinds/trainer/trainjob/TrainJobState.ts"

const job = (status: Record<string, unknown>): KubeObject => ({
  apiVersion: "trainer.kubeflow.org/v1alpha1",
  kind: "TrainJob",
  metadata: { name: "j", namespace: "default" },
  status
})
const condition = (type: string, status: string) => ({ type, status })

describe("trainJobState", () => {
  it("reads terminal conditions first, then suspension, then activity", () => {
    expect(trainJobState(job({ conditions: [condition("Suspended", "True")] }))).toBe("Suspended")
    expect(trainJobState(job({ conditions: [condition("Suspended", "False")], jobsStatus: [{ name: "node", active: 1 }] }))).toBe("Running")
    expect(trainJobState(job({ conditions: [condition("Suspended", "False")] }))).toBe("Pending")
    expect(trainJobState(job({ conditions: [condition("Suspended", "False"), condition("Complete", "True")] }))).toBe("Complete")
    expect(trainJobState(job({ conditions: [condition("Complete", "True"), condition("Failed", "True")] }))).toBe("Failed")
    expect(trainJobState(job({}))).toBe("Pending")
  })

  it("counts a job running when any of its replicated jobs has an active or a ready pod", () => {
    const withJobs = (...jobsStatus: ReadonlyArray<Record<string, unknown>>) => trainJobState(job({ jobsStatus }))
    expect(withJobs({ name: "node", ready: 1 })).toBe("Running")
    expect(withJobs({ name: "init", active: 0, ready: 0 }, { name: "node", active: 2 })).toBe("Running")
    expect(withJobs({ name: "node", active: 0, ready: 0, succeeded: 1 })).toBe("Pending")
    expect(withJobs()).toBe("Pending")
  })

  test.prop([fc.array(fc.tuple(fc.constantFrom("Suspended", "Complete", "Failed", "Created"), fc.constantFrom("True", "False")), { maxLength: 8 })])(
    "counts a job finished exactly when its (first) Complete or Failed condition is True",
    (list) => {
      const object = job({ conditions: list.map(([type, status]) => condition(type, status)) })
      const isTrue = (type: string) => list.find(([t]) => t === type)?.[1] === "True"
      expect(isFinished(object)).toBe(isTrue("Complete") || isTrue("Failed"))
    }
  )
})

const conditionType = fc.constantFrom("Suspended", "Complete", "Failed", "Created")

describe("printedTrainJobState", () => {
  it("is empty without conditions, or when the last one names no type", () => {
    expect(printedTrainJobState(job({}))).toBe("")
    expect(printedTrainJobState(job({ conditions: [] }))).toBe("")
    expect(printedTrainJobState(job({ conditions: [condition("Complete", "True"), { status: "True" }] }))).toBe("")
  })

  test.prop([fc.array(fc.tuple(conditionType, fc.constantFrom("True", "False")), { maxLength: 8 }), fc.array(fc.record({ name: fc.constant("node"), active: fc.nat(3) }), { maxLength: 2 })])(
    "is the type of the last condition whatever its status, or empty, as the CRD's printer column",
    (list, jobsStatus) => {
      const printed = printedTrainJobState(job({ conditions: list.map(([type, status]) => condition(type, status)), jobsStatus }))
      expect(printed).toBe(list.at(-1)?.[0] ?? "")
    }
  )
})

