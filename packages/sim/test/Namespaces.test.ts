import { describe, expect, it } from "vitest"
import { at, bareSimulator, call, created, meta, namespace, read, status, trainJob } from "./SimFixture.ts"

describe("namespaces", () => {
  it("has default from the start, Active, with its name label", () => {
    const ns = read(bareSimulator(), "namespaces", "default")
    expect(ns).toMatchObject({ kind: "Namespace", apiVersion: "v1", status: { phase: "Active" }, spec: { finalizers: ["kubernetes"] } })
    expect(meta(ns)["labels"]).toEqual({ "kubernetes.io/metadata.name": "default" })
  })

  it("creates, lists and deletes namespaces; deleting one removes its objects at the next step", () => {
    const sim = bareSimulator()
    created(sim, "namespaces", namespace("team"))
    created(sim, "trainjobs", trainJob("inside"), "team")
    created(sim, "trainjobs", trainJob("outside"))
    const names = (call(sim, { verb: "list", ...at("namespaces") }).body as { items: ReadonlyArray<unknown> }).items.map((n) => meta(n)["name"])
    expect(names).toEqual(["default", "team"])
    const terminating = call(sim, { verb: "delete", ...at("namespaces"), name: "team" })
    expect(terminating.body).toMatchObject({ status: { phase: "Terminating" } })
    const refused = call(sim, { verb: "create", ...at("trainjobs", "team"), body: trainJob("late") })
    expect(refused.code).toBe(403)
    expect(status(refused)["message"]).toContain("because it is being terminated")
    sim.advance(1000)
    expect(read(sim, "namespaces", "team")).toBeUndefined()
    expect(read(sim, "trainjobs", "inside", "team")).toBeUndefined()
    expect(read(sim, "trainjobs", "outside")).toBeDefined()
  })

  it("keeps a terminating namespace until its objects' finalizers are gone", () => {
    const sim = bareSimulator()
    created(sim, "namespaces", namespace("held"))
    created(sim, "trainjobs", trainJob("stuck", {}, { finalizers: ["example.org/f"] }), "held")
    call(sim, { verb: "delete", ...at("namespaces"), name: "held" })
    sim.advance(2000)
    expect(read(sim, "namespaces", "held")).toBeDefined()
    call(sim, { verb: "patch", ...at("trainjobs", "held"), name: "stuck", patchType: "merge", body: { metadata: { finalizers: null } } })
    sim.advance(1000)
    expect(read(sim, "namespaces", "held")).toBeUndefined()
  })

  it("refuses to delete default", () => {
    const response = call(bareSimulator(), { verb: "delete", ...at("namespaces"), name: "default" })
    expect(response.code).toBe(403)
    expect(status(response)["message"]).toBe('namespaces "default" is forbidden: this namespace may not be deleted')
  })
})
