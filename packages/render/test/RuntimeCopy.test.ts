import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { copyMatchesSource, renderStart } from "../src/index.ts"
import { exampleRequest, plainConfig, runtimeOf } from "./Generators.ts"

const rendered = (source: Record<string, unknown>) => {
  const r = renderStart(exampleRequest, plainConfig, source)
  if (Result.isFailure(r)) throw new Error(JSON.stringify(r.failure))
  return structuredClone(r.success.runtimeCopy) as Record<string, any>
}

describe("copyMatchesSource", () => {
  it("reuses an unowned copy whose spec equals the source's", () => {
    const source = runtimeOf()
    const found = rendered(source)
    found["metadata"]["uid"] = "abc"
    expect(copyMatchesSource(found, source)).toBe(true)
    found["metadata"]["ownerReferences"] = []
    expect(copyMatchesSource(found, source)).toBe(true)
  })
  it("refuses an owned copy", () => {
    const source = runtimeOf()
    const found = rendered(source)
    found["metadata"]["ownerReferences"] = [{ apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", name: "x", uid: "1" }]
    expect(copyMatchesSource(found, source)).toBe(false)
  })
  test.prop([fc.jsonValue()])("refuses a copy whose spec differs from the source's in any way", (value) => {
    const source = runtimeOf()
    const found = rendered(source)
    found["spec"]["template"]["spec"]["extra"] = value
    expect(copyMatchesSource(found, source)).toBe(false)
    expect(copyMatchesSource(found, { ...source, spec: found["spec"] })).toBe(true)
  })
  it("reads no owner in a null list, but an owner in a malformed one", () => {
    const source = runtimeOf()
    const found = rendered(source)
    found["metadata"]["ownerReferences"] = null
    expect(copyMatchesSource(found, source)).toBe(true)
    found["metadata"]["ownerReferences"] = {}
    expect(copyMatchesSource(found, source)).toBe(false)
  })
  it("matches nothing that is not an object, nor two runtimes without a spec", () => {
    const source = runtimeOf()
    expect(copyMatchesSource(null, source)).toBe(false)
    expect(copyMatchesSource(rendered(source), "runtime")).toBe(false)
    expect(copyMatchesSource({ metadata: {} }, { metadata: {} })).toBe(false)
    expect(copyMatchesSource({ spec: {} }, {})).toBe(false)
  })
  test.prop([fc.anything(), fc.anything()])("never throws", (a, b) => {
    expect(typeof copyMatchesSource(a, b)).toBe("boolean")
  })
})
