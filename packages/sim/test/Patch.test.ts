import { describe, expect, it } from "vitest"
import type { KubeObject, PatchType } from "../src/Api.ts"
import { at, bareSimulator, call, created, meta, namespace, read, status, trainJob } from "./SimFixture.ts"

const setup = () => {
  const sim = bareSimulator()
  const job = created(sim, "trainjobs", trainJob("p", {}, { labels: { keep: "yes", drop: "yes" } }))
  const patch = (patchType: PatchType, body: unknown, extra: object = {}) => call(sim, { verb: "patch", ...at("trainjobs"), name: "p", patchType, body, ...extra })
  return { sim, job, patch }
}

describe("patch", () => {
  it("applies a JSON merge patch", () => {
    const { sim, patch } = setup()
    const response = patch("merge", { metadata: { labels: { drop: null, added: "1" } }, spec: { suspend: true } })
    expect(response.code).toBe(200)
    expect(meta(response.body)["labels"]).toEqual({ keep: "yes", added: "1" })
    expect((read(sim, "trainjobs", "p")?.["spec"] as { suspend: boolean }).suspend).toBe(true)
  })

  it("applies a JSON patch, and answers 422 when a test fails", () => {
    const { patch } = setup()
    const ok = patch("json", [{ op: "test", path: "/spec/suspend", value: false }, { op: "replace", path: "/spec/suspend", value: true }])
    expect(ok.code).toBe(200)
    const failed = patch("json", [{ op: "test", path: "/spec/suspend", value: false }, { op: "replace", path: "/spec/suspend", value: false }])
    expect(failed.code).toBe(422)
    expect(status(failed)).toMatchObject({ reason: "Invalid", details: { causes: [{ reason: "UnexpectedServerResponse", message: "testing value /spec/suspend failed: test failed" }] } })
    expect(patch("json", { not: "a list" }).code).toBe(400)
  })

  it("answers 415 for strategic merge patches on custom resources", () => {
    const { patch } = setup()
    const strategic = patch("strategic", { spec: { suspend: true } })
    expect(strategic.code).toBe(415)
    expect(status(strategic)["reason"]).toBe("UnsupportedMediaType")
  })

  it("takes a strategic merge patch on a Namespace, a built-in", () => {
    const sim = bareSimulator()
    created(sim, "namespaces", namespace("team"))
    const response = call(sim, { verb: "patch", ...at("namespaces"), name: "team", patchType: "strategic", body: { metadata: { labels: { owner: "me" } } } })
    expect(response.code).toBe(200)
    expect(meta(response.body)["labels"]).toEqual({ "kubernetes.io/metadata.name": "team", owner: "me" })
  })

  it("checks a resourceVersion the patch carries", () => {
    const { job, patch } = setup()
    expect(patch("merge", { metadata: { resourceVersion: meta(job)["resourceVersion"] }, spec: { suspend: true } }).code).toBe(200)
    expect(patch("merge", { metadata: { resourceVersion: meta(job)["resourceVersion"] }, spec: { suspend: false } }).code).toBe(409)
  })

  it("patches status only through /status, and stores nothing on dryRun", () => {
    const { sim, patch } = setup()
    expect((patch("merge", { status: { conditions: [{ type: "Complete" }] } }).body as KubeObject)["status"]).toBeUndefined()
    expect(patch("merge", { status: { conditions: [{ type: "Complete" }] } }, { subresource: "status" }).code).toBe(200)
    expect(read(sim, "trainjobs", "p")?.["status"]).toEqual({ conditions: [{ type: "Complete" }] })
    const before = read(sim, "trainjobs", "p")
    expect(patch("merge", { spec: { suspend: true } }, { dryRun: true }).code).toBe(200)
    expect(read(sim, "trainjobs", "p")).toEqual(before)
  })

  it("answers 404 for a missing object", () => {
    const sim = bareSimulator()
    expect(call(sim, { verb: "patch", ...at("trainjobs"), name: "none", patchType: "merge", body: {} }).code).toBe(404)
  })
})
