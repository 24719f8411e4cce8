import { test } from "@fast-check/vitest"
import { Result } from "effect"
import { describe, expect } from "vitest"
import { annotationsProblems, labelsProblems } from "@dispatch/kube"
import { renderStart, type KubeObject } from "../src/index.ts"
import { configArb, requestArb, runtimeOf } from "./Generators.ts"

const metadata = (o: KubeObject, field: "labels" | "annotations") => (o["metadata"] as Record<string, Record<string, string>>)[field] ?? {}

describe("labels and annotations", () => {
  test.prop([requestArb(), configArb])("every key and value on both objects and the trainer pods obeys Kubernetes' rules", (request, config) => {
    const r = renderStart(request, config, runtimeOf())
    if (Result.isFailure(r)) throw new Error(JSON.stringify(r.failure))
    const { trainJob, runtimeCopy } = r.success
    const patch = JSON.stringify((trainJob["spec"] as Record<string, unknown>)["runtimePatches"])
    const podLabels = (JSON.parse(patch) as Array<any>)[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.metadata.labels
    for (const o of [trainJob, runtimeCopy]) {
      expect(labelsProblems(metadata(o, "labels"))).toEqual([])
      expect(annotationsProblems(metadata(o, "annotations"))).toEqual([])
    }
    expect(labelsProblems(podLabels)).toEqual([])
    const token = metadata(trainJob, "annotations")[`${config.labelDomain}/attempt-token`]!
    expect(token.split(".")[0]).toBe(String(request.attempt))
    expect(metadata(trainJob, "annotations")[`${config.labelDomain}/comment`]).toContain(` a=${request.attempt}`)
  })
})
