import { test } from "@fast-check/vitest"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { checkRuntime, probeRequest, renderStart, type KubeObject } from "../src/index.ts"
import { configArb, exampleRequest, plainConfig, runtimeOf } from "./Generators.ts"

const patchOf = (trainJob: KubeObject): string => JSON.stringify((trainJob["spec"] as Record<string, unknown>)["runtimePatches"])

describe("probeRequest", () => {
  test.prop([configArb])("renders like any Start, with a node selector no node matches, on the trainer step only", (config) => {
    const request = probeRequest(config)
    expect(request.spec).toMatchObject({ command: ["true"], nodes: 1, extensions: { "dispatch/Image": { ref: "dispatch.invalid/never:probe" }, "kubeflow/RuntimeRef": config.probeRuntime } })
    expect([request.submission, request.attempt]).toEqual([1, 1])
    const r = renderStart(request, config, runtimeOf())
    if (Result.isFailure(r)) throw new Error(JSON.stringify(r.failure))
    const patches = JSON.parse(patchOf(r.success.trainJob)) as Array<any>
    expect(patches).toHaveLength(1)
    expect(patches[0].trainingRuntimeSpec.template.spec.replicatedJobs).toHaveLength(1)
    expect(patches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec).toEqual({
      nodeSelector: { [`${config.labelDomain}/probe`]: "never" }
    })
  })
  it("adds no node selector to an ordinary job", () => {
    const r = renderStart(exampleRequest, plainConfig, runtimeOf())
    expect(Result.isSuccess(r) && patchOf(r.success.trainJob)).not.toContain("nodeSelector")
  })
  it("is held to the same runtime rules", () => {
    const broken = runtimeOf({ env: [{ name: "DISPATCH_X", value: "" }] })
    expect(checkRuntime(plainConfig, plainConfig.probeRuntime, broken, probeRequest(plainConfig).spec)?.error).toBe("ErrUnsupported")
  })
})
