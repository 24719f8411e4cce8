import { describe, expect, it } from "vitest"
import type { KubeObject } from "../src/Api.ts"
import { at, bareSimulator, call, created, meta, ownerRef, read, status, trainJob, workload } from "./SimFixture.ts"

describe("delete", () => {
  it("removes an object without finalizers at once, answering with it", () => {
    const sim = bareSimulator()
    created(sim, "trainjobs", trainJob("d"))
    const response = call(sim, { verb: "delete", ...at("trainjobs"), name: "d" })
    expect(response.code).toBe(200)
    expect(meta(response.body)["name"]).toBe("d")
    expect(read(sim, "trainjobs", "d")).toBeUndefined()
    expect(call(sim, { verb: "delete", ...at("trainjobs"), name: "d" }).code).toBe(404)
  })

  it("checks uid and resourceVersion preconditions: 409", () => {
    const sim = bareSimulator()
    const job = created(sim, "trainjobs", trainJob("pre"))
    const byUid = call(sim, { verb: "delete", ...at("trainjobs"), name: "pre", body: { preconditions: { uid: "not-it" } } })
    expect(byUid.code).toBe(409)
    expect(status(byUid)["message"]).toBe(`Operation cannot be fulfilled on trainjobs.trainer.kubeflow.org "pre": Precondition failed: UID in precondition: not-it, UID in object meta: ${String(meta(job)["uid"])}`)
    expect(call(sim, { verb: "delete", ...at("trainjobs"), name: "pre", body: { preconditions: { resourceVersion: "1" } } }).code).toBe(409)
    expect(call(sim, { verb: "delete", ...at("trainjobs"), name: "pre", body: { preconditions: { uid: meta(job)["uid"], resourceVersion: meta(job)["resourceVersion"] } } }).code).toBe(200)
  })

  it("only marks an object with finalizers; it goes when the last finalizer is removed", () => {
    const sim = bareSimulator()
    created(sim, "trainjobs", trainJob("held", {}, { finalizers: ["example.org/a", "example.org/b"] }))
    const marked = call(sim, { verb: "delete", ...at("trainjobs"), name: "held" }).body as KubeObject
    expect(meta(marked)).toMatchObject({ deletionTimestamp: "2026-01-01T00:00:00Z", deletionGracePeriodSeconds: 0, generation: 2 })
    expect(read(sim, "trainjobs", "held")).toEqual(marked)
    const patch = (body: unknown) => call(sim, { verb: "patch", ...at("trainjobs"), name: "held", patchType: "merge", body })
    const added = patch({ metadata: { finalizers: ["example.org/a", "example.org/b", "example.org/c"] } })
    expect(added.code).toBe(422)
    expect(status(added)["message"]).toContain("no new finalizers can be added if the object is being deleted")
    expect(patch({ metadata: { finalizers: ["example.org/b"] } }).code).toBe(200)
    expect(read(sim, "trainjobs", "held")).toBeDefined()
    expect(patch({ metadata: { finalizers: [] } }).code).toBe(200)
    expect(read(sim, "trainjobs", "held")).toBeUndefined()
  })

  it("stores nothing on dryRun", () => {
    const sim = bareSimulator()
    const job = created(sim, "trainjobs", trainJob("dry"))
    expect(call(sim, { verb: "delete", ...at("trainjobs"), name: "dry", dryRun: true }).code).toBe(200)
    expect(read(sim, "trainjobs", "dry")).toEqual(job)
  })

  it("Background (the default): the garbage collector removes dependents at the next step, cascading", () => {
    const sim = bareSimulator()
    const owner = created(sim, "trainjobs", trainJob("owner"))
    const child = created(sim, "workloads", workload("child", { ownerReferences: [ownerRef(owner, { controller: true })] }))
    created(sim, "workloads", workload("grandchild", { ownerReferences: [ownerRef(child)] }))
    call(sim, { verb: "delete", ...at("trainjobs"), name: "owner" })
    expect(read(sim, "workloads", "child")).toBeDefined()
    sim.advance(1000)
    expect(read(sim, "workloads", "child")).toBeUndefined()
    expect(read(sim, "workloads", "grandchild")).toBeUndefined()
  })

  it("Foreground: the owner stays with foregroundDeletion until blocking dependents are gone", () => {
    const sim = bareSimulator()
    const owner = created(sim, "trainjobs", trainJob("owner"))
    created(sim, "workloads", workload("child", { ownerReferences: [ownerRef(owner, { blockOwnerDeletion: true })], finalizers: ["example.org/hold"] }))
    const marked = call(sim, { verb: "delete", ...at("trainjobs"), name: "owner", propagationPolicy: "Foreground" }).body
    expect(meta(marked)["finalizers"]).toEqual(["foregroundDeletion"])
    sim.advance(1000)
    expect(meta(read(sim, "workloads", "child"))["deletionTimestamp"]).toBeDefined()
    expect(read(sim, "trainjobs", "owner")).toBeDefined()
    call(sim, { verb: "patch", ...at("workloads"), name: "child", patchType: "merge", body: { metadata: { finalizers: null } } })
    sim.advance(1000)
    expect(read(sim, "workloads", "child")).toBeUndefined()
    expect(read(sim, "trainjobs", "owner")).toBeUndefined()
  })

  it("Orphan: dependents lose their reference to the owner and stay", () => {
    const sim = bareSimulator()
    const owner = created(sim, "trainjobs", trainJob("owner"))
    const other = created(sim, "trainjobs", trainJob("other"))
    created(sim, "workloads", workload("child", { ownerReferences: [ownerRef(owner), ownerRef(other)] }))
    const marked = call(sim, { verb: "delete", ...at("trainjobs"), name: "owner", body: { propagationPolicy: "Orphan" } }).body
    expect(meta(marked)["finalizers"]).toEqual(["orphan"])
    sim.advance(1000)
    expect(read(sim, "trainjobs", "owner")).toBeUndefined()
    expect(meta(read(sim, "workloads", "child"))["ownerReferences"]).toEqual([ownerRef(other)])
  })

  it("answers 400 for an unknown propagation policy", () => {
    const sim = bareSimulator()
    created(sim, "trainjobs", trainJob("x"))
    expect(call(sim, { verb: "delete", ...at("trainjobs"), name: "x", body: { propagationPolicy: "Sometimes" } }).code).toBe(400)
  })
})
