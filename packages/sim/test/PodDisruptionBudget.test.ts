// policy/v1 PodDisruptionBudget in the simulator: stored and read back with a zeroed status (nothing
// evicts pods), refused for an undeclared field, and validated.
import { describe, expect, it } from "vitest"
import type { KubeObject } from "../src/Api.ts"
import { at, bareSimulator, call, created, invalidCauses } from "./SimFixture.ts"

const budget = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "policy/v1",
  kind: "PodDisruptionBudget",
  metadata: { name },
  spec: { selector: { matchLabels: { app: name } }, ...spec }
})

describe("PodDisruptionBudget", () => {
  it("is stored as sent, with its status counts at zero", () => {
    const sim = bareSimulator()
    const stored = created(sim, "poddisruptionbudgets", budget("web", { minAvailable: 1, unhealthyPodEvictionPolicy: "AlwaysAllow" }))
    expect(stored).toMatchObject({ spec: { minAvailable: 1, unhealthyPodEvictionPolicy: "AlwaysAllow" }, status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 } })
    expect(call(sim, { verb: "get", ...at("poddisruptionbudgets"), name: "web" }).body).toEqual(stored)
    expect(created(sim, "poddisruptionbudgets", budget("pct", { maxUnavailable: "25%" }))).toMatchObject({ spec: { maxUnavailable: "25%" } })
  })

  it("refuses an undeclared field, both bounds at once, and a bound that is neither a count nor a percentage", () => {
    const sim = bareSimulator()
    expect(call(sim, { verb: "create", ...at("poddisruptionbudgets"), body: budget("a", { minAvailble: 1 }), fieldValidation: "Strict" }).body).toMatchObject({
      message: 'PodDisruptionBudget in version "v1" cannot be handled as a PodDisruptionBudget: strict decoding error: unknown field "spec.minAvailble"'
    })
    const causes = (body: KubeObject) => invalidCauses(sim, "poddisruptionbudgets", body)
    expect(causes(budget("a", { minAvailable: 1, maxUnavailable: 1 }))).toEqual(['spec: Invalid value: "object": minAvailable and maxUnavailable cannot be both set'])
    expect(causes(budget("a", { maxUnavailable: "half" }))).toEqual(["spec.maxUnavailable: Invalid value: \"half\": must be an integer or percentage (e.g '5%')"])
    // An int-or-string field holds nothing else.
    expect(causes(budget("a", { minAvailable: true }))).toEqual(["spec.minAvailable: Invalid value: true: spec.minAvailable in body must be of type integer,string"])
  })
})
