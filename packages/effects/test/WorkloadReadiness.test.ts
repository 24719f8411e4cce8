import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { KubeResource } from "../src/KubeObjects.ts"
import { admissionGatedBy } from "@dispatch/kube"
import { workloadProblems } from "../src/WorkloadReadiness.ts"

const token = fc.stringMatching(/^[a-z][a-z0-9.\/-]{0,20}$/)

const workload = (gates: ReadonlyArray<string>, checks: ReadonlyArray<string>): KubeResource => ({
  apiVersion: "kueue.x-k8s.io/v1beta1",
  kind: "Workload",
  metadata: { name: "trainjob-x-abcde", annotations: { [admissionGatedBy]: gates.join(",") } },
  status: { admissionChecks: checks.map((name) => ({ name, state: "Pending" })) }
})

describe("workloadProblems", () => {
  test.prop([token, token, fc.array(token, { maxLength: 3 }), fc.array(token, { maxLength: 3 })])(
    "is empty exactly when some Workload carries the gate and lists the check",
    (gate, check, otherGates, otherChecks) => {
      const ready = workload([...otherGates, gate], [...otherChecks, check])
      expect(workloadProblems([ready], gate, check)).toEqual([])
      const noGate = workload(otherGates.filter((g) => g !== gate), [check])
      const noCheck = workload([gate], otherChecks.filter((c) => c !== check))
      expect(workloadProblems([noGate], gate, check).length).toBeGreaterThan(0)
      expect(workloadProblems([noCheck], gate, check).length).toBeGreaterThan(0)
      expect(workloadProblems([noGate, ready], gate, check)).toEqual([])
    }
  )

  test.prop([token, token, fc.array(token, { maxLength: 3 })])(
    "for a TrainJob a retry adopted, a Workload that lost the gate counts, one without the check does not",
    (gate, check, otherChecks) => {
      const opened = workload([], [check])
      expect(workloadProblems([opened], gate, check, { gateMayBeGone: true })).toEqual([])
      expect(workloadProblems([opened], gate, check).length).toBeGreaterThan(0)
      const noCheck = workload([gate], otherChecks.filter((c) => c !== check))
      expect(workloadProblems([noCheck], gate, check, { gateMayBeGone: true }).length).toBeGreaterThan(0)
    }
  )

  test.prop([token, token])("reports a missing Workload", (gate, check) => {
    expect(workloadProblems([], gate, check)).toEqual(["no Workload exists for the TrainJob yet"])
  })
  it("names, for every Workload when none is ready, the gate and the check it lacks", () => {
    const bare: KubeResource = { apiVersion: "kueue.x-k8s.io/v1beta1", kind: "Workload", metadata: { name: "trainjob-x-bare" } }
    const gated = workload(["dispatch.io/start"], [])
    expect(workloadProblems([bare, gated], "dispatch.io/start", "dispatch-check")).toEqual([
      `Workload trainjob-x-bare does not carry dispatch's admission gate dispatch.io/start in ${admissionGatedBy}`,
      "Workload trainjob-x-bare does not list the admission check dispatch-check",
      "Workload trainjob-x-abcde does not list the admission check dispatch-check"
    ])
  })

  it("a Workload whose admission checks are malformed lists none", () => {
    const malformed: KubeResource = { ...workload(["g"], []), status: { admissionChecks: "dispatch-check" } }
    expect(workloadProblems([malformed], "g", "dispatch-check")).toEqual(["Workload trainjob-x-abcde does not list the admission check dispatch-check"])
  })
})

describe("a Workload's admission gates", () => {
  it("a Workload whose annotation lists the gate among others, with spaces, carries it", () => {
    const spaced = workload(["other/gate", " dispatch.io/start "], ["c"])
    expect(workloadProblems([spaced], "dispatch.io/start", "c")).toEqual([])
  })
})
