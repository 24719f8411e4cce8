import { describe, expect, it } from "vitest"
import { Resources } from "../src/kinds/Builtin.ts"
import { defaultStartTime, Simulator } from "../src/Simulator.ts"
import { at, bareSimulator, call, clusterRuntime, meta, read, trainJob } from "./SimFixture.ts"

describe("simulator", () => {
  it("starts its clock at 2026-01-01 and moves it in steps of at most one second, reconciling at each", () => {
    const sim = bareSimulator()
    expect(sim.now()).toBe(defaultStartTime)
    expect(new Date(defaultStartTime).toISOString()).toBe("2026-01-01T00:00:00.000Z")
    const seen: Array<number> = []
    sim.addController({ name: "recorder", reconcile: (system) => seen.push(system.now() - defaultStartTime) })
    sim.advance(2500)
    sim.advanceTo(defaultStartTime + 2500)
    sim.advanceTo(defaultStartTime)
    expect(seen).toEqual([1000, 2000, 2500])
    expect(sim.now()).toBe(defaultStartTime + 2500)
  })

  it("skips a controller that says when it is due while nothing was written and that time has not come", () => {
    const sim = bareSimulator()
    const seen: Array<number> = []
    let due = defaultStartTime + 3000
    sim.addController({ name: "due", dueAt: () => due, reconcile: (system) => seen.push(system.now() - defaultStartTime) })
    sim.advance(2000)
    // the first pass always runs; then nothing is written and the due time is still ahead
    expect(seen).toEqual([1000])
    call(sim, { verb: "create", ...at("clustertrainingruntimes"), body: clusterRuntime("written") })
    sim.advance(2000)
    // a write wakes it; then its due time, now passed, does
    expect(seen).toEqual([1000, 3000, 4000])
    due = Number.POSITIVE_INFINITY
    sim.advance(3000)
    expect(seen).toEqual([1000, 3000, 4000])
    due = defaultStartTime + 9000
    sim.advance(2000)
    expect(seen).toEqual([1000, 3000, 4000, 9000])
  })

  it("gives controllers stored objects frozen, and its users copies they may change", () => {
    const sim = bareSimulator({ objects: [clusterRuntime("rt")] })
    const seen: Array<unknown> = []
    sim.addController({ name: "reader", reconcile: (system) => seen.push(system.get("clustertrainingruntimes", undefined, "rt")) })
    sim.advance(1000)
    expect(Object.isFrozen(seen[0])).toBe(true)
    expect(Object.isFrozen((seen[0] as { spec: unknown }).spec)).toBe(true)
    const copy = sim.system.get("clustertrainingruntimes", undefined, "rt")
    expect(Object.isFrozen(copy)).toBe(false)
    expect(copy).toEqual(seen[0])
  })

  it("answers its in-process callers with copies they may change, and serve (for a face that only serialises) with the stored parts", () => {
    const sim = bareSimulator({ objects: [clusterRuntime("rt")] })
    const request = { verb: "get", ...at("clustertrainingruntimes"), name: "rt" } as const
    const served = sim.serve(request)
    const handled = sim.handle(request)
    if (served.kind !== "answered" || handled.kind !== "answered") throw new Error("not answered")
    const shared = served.response.body as { spec: Record<string, unknown>; metadata: Record<string, unknown> }
    const copy = handled.response.body as { spec: Record<string, unknown>; metadata: Record<string, unknown> }
    expect(copy).toEqual(shared)
    expect(JSON.stringify(copy)).toBe(JSON.stringify(shared))
    expect(Object.isFrozen(shared.spec)).toBe(true)
    expect(Object.isFrozen(copy.spec)).toBe(false)
    // managedFields stay shared and frozen in a copy: no caller edits them in place.
    expect(copy.metadata["managedFields"]).toBe(shared.metadata["managedFields"])
    copy.spec["edited"] = true
    expect(read(sim, "clustertrainingruntimes", "rt")?.spec).toEqual(clusterRuntime("rt").spec)
    // So are the write answers of the users' system client.
    const written = sim.system.create("clustertrainingruntimes", clusterRuntime("rt2")).body as { spec: Record<string, unknown> }
    expect(Object.isFrozen(written.spec)).toBe(false)
    written.spec["edited"] = true
    expect(read(sim, "clustertrainingruntimes", "rt2")?.spec).toEqual(clusterRuntime("rt2").spec)
  })

  it("seeds objects through validation, creating their namespaces, and reports refused seeds", () => {
    const sim = bareSimulator({
      objects: [clusterRuntime("torch-distributed"), trainJob("seeded", {}, { namespace: "team" }), clusterRuntime("Bad Name")]
    })
    expect(read(sim, "clustertrainingruntimes", "torch-distributed")).toBeDefined()
    expect(read(sim, "trainjobs", "seeded", "team")).toBeDefined()
    expect(sim.rejectedSeeds.map((r) => [meta(r.object)["name"], r.response.code])).toEqual([["Bad Name", 422]])
  })

  it("gives controllers a system client without auth or faults", () => {
    const sim = bareSimulator({ auth: { tokens: {} }, faults: [{ action: { type: "refuse" } }] })
    const made = sim.system.create("trainjobs", trainJob("direct"))
    expect(made.code).toBe(201)
    const stored = sim.system.get("trainjobs", "default", "direct")
    expect(stored).toBeDefined()
    expect(sim.system.list("trainjobs", "default", "missing")).toEqual([])
    expect(sim.system.list("trainjobs", "default").map((o) => meta(o)["name"])).toEqual(["direct"])
    expect(sim.system.updateStatus("trainjobs", { ...made.body as object, status: { conditions: [] } }).code).toBe(200)
    expect(sim.system.delete("trainjobs", "default", "direct").code).toBe(200)
    expect(sim.system.get("trainjobs", "default", "direct")).toBeUndefined()
  })

  it("answers 404 for resources and versions it does not serve, and 405 for verbs on the wrong path", () => {
    const sim = bareSimulator()
    expect(call(sim, { verb: "list", group: "apps", version: "v1", resource: "statefulsets" }).code).toBe(404)
    expect(call(sim, { verb: "list", ...at("trainjobs"), version: "v2" }).code).toBe(404)
    expect(call(sim, { verb: "get", ...at("trainingruntimes"), name: "x", subresource: "status" }).code).toBe(404)
    expect(call(sim, { verb: "delete", ...at("trainjobs") }).code).toBe(405)
    expect(Resources.map((r) => r.plural)).toContain("trainjobs")
  })

  it("gives the same uids for the same seed", () => {
    const uid = (seed: number) => meta(new Simulator({ seed, controllers: { trainer: { installed: false } } }).system.create("trainjobs", trainJob("u")).body)["uid"]
    expect(uid(5)).toBe(uid(5))
    expect(uid(5)).not.toBe(uid(6))
    expect(call(bareSimulator(), { verb: "get", ...at("namespaces"), name: "default" }).code).toBe(200)
  })

  it("gives different uids and generated names from one unseeded simulator to the next, and tells its seed", () => {
    const made = (seed?: number) => {
      const sim = new Simulator({ ...(seed === undefined ? {} : { seed }), controllers: { trainer: { installed: false } } })
      const job = meta(sim.system.create("trainjobs", trainJob("u")).body)
      const named = meta(sim.system.create("trainjobs", { ...trainJob("ignored"), metadata: { generateName: "g-", namespace: "default" } }).body)
      const namespace = meta(sim.system.get("namespaces", undefined, "default"))
      return { sim, ids: [namespace["uid"], job["uid"], named["name"]] }
    }
    const runs = Array.from({ length: 5 }, () => made())
    // Every uid and generated name of every run differs from every other run's.
    for (const column of [0, 1, 2]) expect(new Set(runs.map((r) => r.ids[column])).size).toBe(runs.length)
    const first = runs[0]
    expect(first).toBeDefined()
    if (first === undefined) return
    expect(made(first.sim.uidSeed).ids).toEqual(first.ids)
    expect(new Simulator({ seed: 5 }).uidSeed).toBe(5)
  })
})
