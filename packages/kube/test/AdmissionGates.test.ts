// Kueue's admission-gated-by annotation, read as written by hand.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { parseAdmissionGates } from "../src/AdmissionGates.ts"

describe("parseAdmissionGates", () => {
  it("reads Kueue's comma-separated list: spaces around a gate and empty entries ignored", () => {
    expect(parseAdmissionGates(" kueue.x-k8s.io/a , dispatch.io/start,, ")).toEqual(["kueue.x-k8s.io/a", "dispatch.io/start"])
    expect(parseAdmissionGates(undefined)).toEqual([])
    expect(parseAdmissionGates("")).toEqual([])
    expect(parseAdmissionGates(" , ")).toEqual([])
  })

  const gate = fc.stringMatching(/^[a-z]{1,5}\.[a-z]{1,5}\/[a-z]{1,8}$/)
  test.prop([fc.array(gate, { maxLength: 5 }), fc.constantFrom(",", ", ", " ,")])("joining gates and reading them back gives the gates", (gates, separator) => {
    expect(parseAdmissionGates(gates.join(separator))).toEqual(gates)
  })
})
