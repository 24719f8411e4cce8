import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { KubeObject } from "../src/Api.ts"
import { isFinished, printedTrainJobState } from "../src/kinds/trainer/trainjob/TrainJobState.ts"

const job = (status: Record<string, unknown>): KubeObject => ({
  apiVersion: "trainer.kubeflow.org/v1alpha1",
  kind: "TrainJob",
  metadata: { name: "j", namespace: "default" },
  status
})
const condition = (type: string, status: string) => ({ type, status })

describe("isFinished", () => {
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

