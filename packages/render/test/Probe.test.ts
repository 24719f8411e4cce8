import { test } from "@fast-check/vitest"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { checkRuntime, probeRequest, renderStart, type KubeObject } from "../src/index.ts"
import { configArb, exampleRequest, plainConfig, runtimeOf } from "./Generators.ts"

const patchOf = (trainJob: KubeObject): string => JSON.stringify((trainJob["spec"] as Record<string, unknown>)["runtimePatches"])

describe("probeRequest", () => {
  test.prop([configArb])("renders like any Start, with a node selector no node matches (on the one step of a single-step runtime)", (config) => {
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
  it("gives every replicated job the node selector, so no pod of the probe can be scheduled (a DeepSpeed-style runtime)", () => {
    const runtime = runtimeOf()
    const trainer = (((runtime["spec"] as any).template.spec.replicatedJobs as Array<any>)[0])
    const worker = { ...structuredClone(trainer), name: "worker", template: { ...structuredClone(trainer.template), metadata: {} } }
    ;(runtime["spec"] as any).template.spec.replicatedJobs = [worker, trainer]
    const r = renderStart(probeRequest(plainConfig), plainConfig, runtime)
    if (Result.isFailure(r)) throw new Error(JSON.stringify(r.failure))
    const jobs = (JSON.parse(patchOf(r.success.trainJob)) as Array<any>)[0].trainingRuntimeSpec.template.spec.replicatedJobs as Array<any>
    expect(jobs.map((j) => j.name).sort()).toEqual(["worker", trainer.name].sort())
    for (const j of jobs) expect(j.template.spec.template.spec).toEqual({ nodeSelector: { [`${plainConfig.labelDomain}/probe`]: "never" } })
    // An ordinary job's patch still targets the trainer step only.
    const ordinary = renderStart(exampleRequest, plainConfig, runtime)
    if (Result.isFailure(ordinary)) throw new Error(JSON.stringify(ordinary.failure))
    expect((JSON.parse(patchOf(ordinary.success.trainJob)) as Array<any>)[0].trainingRuntimeSpec.template.spec.replicatedJobs.map((j: any) => j.name)).toEqual([trainer.name])
  })

  it("skips a replicated job without a name: only named steps can be patched", () => {
    const runtime = runtimeOf()
    const trainer = ((runtime["spec"] as any).template.spec.replicatedJobs as Array<any>)[0]
    const { name: _, ...nameless } = { ...structuredClone(trainer), template: { ...structuredClone(trainer.template), metadata: {} } }
    ;(runtime["spec"] as any).template.spec.replicatedJobs = [nameless, trainer]
    const r = renderStart(probeRequest(plainConfig), plainConfig, runtime)
    if (Result.isFailure(r)) throw new Error(JSON.stringify(r.failure))
    const jobs = (JSON.parse(patchOf(r.success.trainJob)) as Array<any>)[0].trainingRuntimeSpec.template.spec.replicatedJobs as Array<any>
    expect(jobs.map((j) => j.name)).toEqual([trainer.name])
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
