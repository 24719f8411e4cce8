import { test as propTest, fc } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { KubeObject } from "../src/Api.ts"
import { at, bareSimulator, call, created, meta, ownerRef, read, trainJob, workload } from "./SimFixture.ts"

// A forest of TrainJobs (owners) and Workloads (each owned by some TrainJobs and earlier Workloads),
// some of whose owners are then deleted.
const forest = fc.record({
  jobs: fc.integer({ min: 1, max: 4 }),
  workloads: fc.array(fc.record({ jobOwners: fc.array(fc.nat(3), { maxLength: 2 }), workloadOwners: fc.array(fc.nat(9), { maxLength: 2 }), staleUid: fc.boolean() }), { maxLength: 10 }),
  deleted: fc.array(fc.nat(3), { maxLength: 3 })
})

const refsOf = (o: KubeObject) => (meta(o)["ownerReferences"] as ReadonlyArray<Record<string, unknown>> | undefined) ?? []

describe("garbage collection", () => {
  propTest.prop([forest], { numRuns: 60 })("after one step no object has all its owners gone, and none with a live owner was deleted", (plan) => {
    const sim = bareSimulator()
    const jobs = Array.from({ length: plan.jobs }, (_, i) => created(sim, "trainjobs", trainJob(`job-${i}`)))
    const workloads: Array<KubeObject> = []
    plan.workloads.forEach((w, i) => {
      const owners = [...w.jobOwners.map((j) => jobs[j % jobs.length]), ...w.workloadOwners.filter((k) => k < workloads.length).map((k) => workloads[k])]
      // with staleUid, the first reference names its owner with a uid it never had
      const refs = owners.flatMap((o, k) => (o === undefined ? [] : [ownerRef(o, w.staleUid && k === 0 ? { uid: `stale-${i}` } : {})]))
      workloads.push(created(sim, "workloads", workload(`wl-${i}`, refs.length === 0 ? {} : { ownerReferences: refs })))
    })
    for (const j of plan.deleted) call(sim, { verb: "delete", ...at("trainjobs"), name: `job-${j % jobs.length}` })
    sim.advance(1000)

    const alive = (o: Record<string, unknown>): boolean => {
      const resource = o["kind"] === "TrainJob" ? "trainjobs" : "workloads"
      const found = read(sim, resource, String(o["name"]))
      return found !== undefined && meta(found)["uid"] === o["uid"]
    }
    for (const w of workloads) {
      const stored = read(sim, "workloads", String(meta(w)["name"]))
      const refs = refsOf(w)
      if (stored === undefined) {
        // deleted: it must have had owners, none of which survive
        expect(refs.length).toBeGreaterThan(0)
        expect(refs.some(alive)).toBe(false)
      } else {
        const remaining = refsOf(stored)
        if (refs.length > 0) expect(remaining.some(alive)).toBe(true)
        // dangling references beside live owners are dropped
        expect(remaining.every(alive)).toBe(true)
      }
    }
  })

  it("treats an owner with another uid (deleted and recreated) as gone", () => {
    const sim = bareSimulator()
    const first = created(sim, "trainjobs", trainJob("reborn"))
    created(sim, "workloads", workload("dependent", { ownerReferences: [ownerRef(first)] }))
    call(sim, { verb: "delete", ...at("trainjobs"), name: "reborn" })
    created(sim, "trainjobs", trainJob("reborn"))
    sim.advance(1000)
    expect(read(sim, "workloads", "dependent")).toBeUndefined()
    expect(read(sim, "trainjobs", "reborn")).toBeDefined()
  })

  it("leaves references to kinds it does not serve alone", () => {
    const sim = bareSimulator()
    created(sim, "workloads", workload("foreign", { ownerReferences: [{ apiVersion: "v1", kind: "Endpoints", name: "s", uid: "123" }] }))
    sim.advance(1000)
    expect(read(sim, "workloads", "foreign")).toBeDefined()
  })

  it("only marks a dangling dependent that has finalizers", () => {
    const sim = bareSimulator()
    const owner = created(sim, "trainjobs", trainJob("owner"))
    created(sim, "workloads", workload("held", { ownerReferences: [ownerRef(owner)], finalizers: ["example.org/keep"] }))
    call(sim, { verb: "delete", ...at("trainjobs"), name: "owner" })
    sim.advance(1000)
    expect(meta(read(sim, "workloads", "held"))["deletionTimestamp"]).toBe("2026-01-01T00:00:01Z")
  })
})
