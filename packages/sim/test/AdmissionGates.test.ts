// Kueue's admission gates on a Workload: the problems of a gate list, and of a change to it.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { gateProblems, gateUpdateProblems } from "../src/controllers/kueue/AdmissionGates.ts"
import { parseAdmissionGates } from "@dispatch/kube"


describe("admission gates", () => {
  const gate = fc.tuple(fc.stringMatching(/^[a-z]{1,10}\.(com|org)$/), fc.stringMatching(/^[a-z][a-z0-9]{0,20}$/)).map(([d, n]) => `${d}/${n}`)
  test.prop([fc.uniqueArray(gate, { maxLength: 5 })])("parse back what is joined, and valid gates pass", (gates) => {
    expect(parseAdmissionGates(gates.join(","))).toEqual(gates)
    expect(gateProblems("p", gates.join(", "))).toEqual([])
  })
  test.prop([fc.uniqueArray(gate, { maxLength: 5 }), fc.uniqueArray(gate, { maxLength: 5 })])(
    "an update may remove gates but never add one",
    (before, after) => {
      const added = after.filter((g) => !before.includes(g))
      expect(gateUpdateProblems("p", before.join(","), after.join(",")).length > 0).toBe(added.length > 0)
    }
  )
  it("refuses gates without a domain or too long", () => {
    expect(gateProblems("p", "plain")).toHaveLength(1)
    expect(gateProblems("p", `example.com/${"g".repeat(60)}`)).toHaveLength(1)
    expect(gateProblems("p", `e.io/${"g".repeat(58)}`)).toEqual([])
    expect(gateProblems("p", `e.io/${"g".repeat(59)}`)).toEqual([expect.stringMatching(/no more than 63 characters$/)])
    expect(gateProblems("p", "/g")).toHaveLength(1)
    expect(gateProblems("p", "e.io/g/h")).toHaveLength(1)
    expect(gateProblems("p", "E.io/g")).toHaveLength(1)
    expect(parseAdmissionGates(undefined)).toEqual([])
    expect(parseAdmissionGates("")).toEqual([])
  })
})
