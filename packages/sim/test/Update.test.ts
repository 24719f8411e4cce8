import { test as propTest, fc } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { ApiRequest, KubeObject } from "../src/Api.ts"
import { at, bareSimulator, call, created, meta, read, status, trainJob } from "./SimFixture.ts"

describe("update (PUT)", () => {
  it("requires metadata.resourceVersion: 422 Invalid", () => {
    const sim = bareSimulator()
    const job = created(sim, "trainjobs", trainJob("u"))
    const { resourceVersion: _rv, ...rest } = meta(job)
    const response = call(sim, { verb: "update", ...at("trainjobs"), name: "u", body: { ...job, metadata: rest } })
    expect(response.code).toBe(422)
    expect(status(response)).toMatchObject({
      reason: "Invalid",
      message: 'TrainJob.trainer.kubeflow.org "u" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
      details: { name: "u", group: "trainer.kubeflow.org", kind: "TrainJob", causes: [{ reason: "FieldValueInvalid", message: "Invalid value: 0x0: must be specified for an update", field: "metadata.resourceVersion" }] }
    })
  })

  it("refuses a stale resourceVersion: 409 Conflict", () => {
    const sim = bareSimulator()
    const job = created(sim, "trainjobs", trainJob("u"))
    expect(call(sim, { verb: "update", ...at("trainjobs"), name: "u", body: { ...job, spec: { ...(job["spec"] as object), suspend: true } } }).code).toBe(200)
    const stale = call(sim, { verb: "update", ...at("trainjobs"), name: "u", body: job })
    expect(stale.code).toBe(409)
    expect(status(stale)).toMatchObject({
      reason: "Conflict",
      message: 'Operation cannot be fulfilled on trainjobs.trainer.kubeflow.org "u": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: "u", group: "trainer.kubeflow.org", kind: "trainjobs" }
    })
  })

  it("ignores status on the main endpoint and everything else on /status", () => {
    const sim = bareSimulator()
    const job = created(sim, "trainjobs", trainJob("s"))
    const main = call(sim, { verb: "update", ...at("trainjobs"), name: "s", body: { ...job, status: { conditions: [{ type: "Complete" }] }, metadata: { ...meta(job), labels: { a: "b" } } } })
    expect(main.code).toBe(200)
    expect((main.body as KubeObject)["status"]).toBeUndefined()
    expect(meta(main.body)["labels"]).toEqual({ a: "b" })
    const current = main.body as KubeObject
    const viaStatus = call(sim, {
      verb: "update",
      ...at("trainjobs"),
      name: "s",
      subresource: "status",
      body: { ...current, spec: { ...(current["spec"] as object), suspend: true }, metadata: { ...meta(current), labels: { c: "d" } }, status: { conditions: [{ type: "Complete" }] } }
    })
    expect(viaStatus.code).toBe(200)
    const stored = read(sim, "trainjobs", "s")
    expect(stored?.["status"]).toEqual({ conditions: [{ type: "Complete" }] })
    expect(stored?.["spec"]).toEqual(job["spec"])
    expect(meta(stored)["labels"]).toEqual({ a: "b" })
  })

  it("raises generation on changes outside metadata and status only, and keeps server-owned metadata", () => {
    const sim = bareSimulator()
    const job = created(sim, "trainjobs", trainJob("g"))
    const put = (body: KubeObject, subresource?: "status") =>
      call(sim, { verb: "update", ...at("trainjobs"), name: "g", body, ...(subresource === undefined ? {} : { subresource }) }).body as KubeObject
    const labelled = put({ ...job, metadata: { ...meta(job), labels: { x: "y" }, uid: undefined, creationTimestamp: "1999-01-01T00:00:00Z", generation: 99 } })
    expect(meta(labelled)).toMatchObject({ generation: 1, uid: meta(job)["uid"], creationTimestamp: meta(job)["creationTimestamp"] })
    const statused = put({ ...labelled, status: { conditions: [] } }, "status")
    expect(meta(statused)["generation"]).toBe(1)
    const suspended = put({ ...statused, spec: { ...(statused["spec"] as object), suspend: true } })
    expect(meta(suspended)["generation"]).toBe(2)
  })

  it("stores nothing for an update that changes nothing", () => {
    const sim = bareSimulator()
    const job = created(sim, "trainjobs", trainJob("same"))
    const response = call(sim, { verb: "update", ...at("trainjobs"), name: "same", body: job })
    expect(meta(response.body)["resourceVersion"]).toBe(meta(job)["resourceVersion"])
  })

  it("answers 404 for a missing object and 400 for a name that does not match the URL", () => {
    const sim = bareSimulator()
    const job = created(sim, "trainjobs", trainJob("here"))
    expect(call(sim, { verb: "update", ...at("trainjobs"), name: "gone", body: { ...job, metadata: { ...meta(job), name: "gone" } } }).code).toBe(404)
    expect(call(sim, { verb: "update", ...at("trainjobs"), name: "else", body: job }).code).toBe(400)
  })

  it("stores nothing on dryRun", () => {
    const sim = bareSimulator()
    const job = created(sim, "trainjobs", trainJob("dry"))
    const response = call(sim, { verb: "update", ...at("trainjobs"), name: "dry", dryRun: true, body: { ...job, metadata: { ...meta(job), labels: { a: "b" } } } })
    expect(meta(response.body)["labels"]).toEqual({ a: "b" })
    expect(read(sim, "trainjobs", "dry")).toEqual(job)
  })
})

// A random write against a small set of names: every answer that changed its object carries a
// resourceVersion above every earlier one, and the list's version never goes back.
const write = fc.record({
  verb: fc.constantFrom("create", "patch", "delete", "status"),
  name: fc.constantFrom("a", "b", "c"),
  suspend: fc.boolean()
})

describe("resourceVersion", () => {
  propTest.prop([fc.array(write, { maxLength: 30 })], { numRuns: 50 })("strictly increases across writes, as one global counter", (writes) => {
    const sim = bareSimulator()
    let highest = 0
    let listedBefore = 0
    const versions = new Map<string, number>()
    for (const w of writes) {
      const request: ApiRequest =
        w.verb === "create"
          ? { verb: "create", ...at("trainjobs"), body: trainJob(w.name, { suspend: w.suspend }) }
          : w.verb === "delete"
            ? { verb: "delete", ...at("trainjobs"), name: w.name }
            : w.verb === "status"
              ? { verb: "patch", ...at("trainjobs"), name: w.name, subresource: "status", patchType: "merge", body: { status: { conditions: [{ type: "Suspended", status: String(w.suspend) }] } } }
              : { verb: "patch", ...at("trainjobs"), name: w.name, patchType: "merge", body: { spec: { suspend: w.suspend } } }
      const response = call(sim, request)
      if (response.code < 300) {
        const rv = Number(meta(response.body)["resourceVersion"])
        if (rv !== versions.get(w.name)) {
          expect(rv).toBeGreaterThan(highest)
          highest = rv
        }
        if (w.verb === "delete") versions.delete(w.name)
        else versions.set(w.name, rv)
      }
      const listed = Number((call(sim, { verb: "list", ...at("trainjobs") }).body as { metadata: { resourceVersion: string } }).metadata.resourceVersion)
      expect(listed).toBeGreaterThanOrEqual(Math.max(highest, listedBefore))
      listedBefore = listed
    }
  })
})
