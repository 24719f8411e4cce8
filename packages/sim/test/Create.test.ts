import { describe, expect, it } from "vitest"
import type { Admission, KubeObject } from "../src/Api.ts"
import { Simulator } from "../src/Simulator.ts"
import { at, bareSimulator, call, created, meta, read, status, trainJob } from "./SimFixture.ts"

describe("create", () => {
  it("sets uid, resourceVersion, generation, creationTimestamp and the CRD defaults, and drops status", () => {
    const sim = bareSimulator({ startTime: Date.UTC(2026, 2, 3, 4, 5, 6, 789) })
    const job = created(sim, "trainjobs", { ...trainJob("first"), status: { conditions: [] } })
    expect(meta(job)).toMatchObject({ name: "first", namespace: "default", generation: 1, creationTimestamp: "2026-03-03T04:05:06Z" })
    expect(meta(job)["uid"]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(Number(meta(job)["resourceVersion"])).toBeGreaterThan(0)
    expect(job["status"]).toBeUndefined()
    expect(job["spec"]).toEqual({
      runtimeRef: { apiGroup: "trainer.kubeflow.org", kind: "ClusterTrainingRuntime", name: "torch-distributed" },
      managedBy: "trainer.kubeflow.org/trainjob-controller",
      suspend: false
    })
    expect(read(sim, "trainjobs", "first")).toEqual(job)
  })

  it("keeps no reference to the body it was sent, nor hands out its own", () => {
    const sim = bareSimulator()
    const body = trainJob("copied", { trainer: { command: ["python"] } })
    created(sim, "trainjobs", body)
    ;((body["spec"] as { trainer: { command: Array<string> } }).trainer.command).push("changed")
    const first = read(sim, "trainjobs", "copied")
    ;((first?.["spec"] as { trainer: { command: Array<string> } }).trainer.command).push("changed")
    expect((read(sim, "trainjobs", "copied")?.["spec"] as { trainer: unknown }).trainer).toEqual({ command: ["python"] })
  })

  it("answers 409 AlreadyExists with the plural in details", () => {
    const sim = bareSimulator()
    created(sim, "trainjobs", trainJob("twice"))
    const again = call(sim, { verb: "create", ...at("trainjobs"), body: trainJob("twice") })
    expect(again.code).toBe(409)
    expect(status(again)).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'trainjobs.trainer.kubeflow.org "twice" already exists',
      reason: "AlreadyExists",
      details: { name: "twice", group: "trainer.kubeflow.org", kind: "trainjobs" },
      code: 409
    })
  })

  it("generates names from generateName, the same for the same seed", () => {
    const make = () => {
      const sim = bareSimulator({ seed: 42 })
      return created(sim, "trainjobs", { ...trainJob(""), metadata: { generateName: "job-" } })
    }
    const a = make()
    expect(meta(a)["name"]).toMatch(/^job-[bcdfghjklmnpqrstvwxz2456789]{5}$/)
    expect(meta(make())).toEqual(meta(a))
    const other = created(bareSimulator({ seed: 43 }), "trainjobs", { ...trainJob(""), metadata: { generateName: "job-" } })
    expect(meta(other)["uid"]).not.toBe(meta(a)["uid"])
  })

  it("requires a name or generateName", () => {
    const response = call(bareSimulator(), { verb: "create", ...at("trainjobs"), body: { ...trainJob(""), metadata: {} } })
    expect(response.code).toBe(422)
    expect(status(response)["details"]).toMatchObject({ causes: [{ reason: "FieldValueRequired", field: "metadata.name" }] })
  })

  it("stores nothing on dryRun", () => {
    const sim = bareSimulator()
    const response = call(sim, { verb: "create", ...at("trainjobs"), body: trainJob("dry"), dryRun: true })
    expect(response.code).toBe(201)
    expect(meta(response.body)["resourceVersion"]).toBeUndefined()
    expect(meta(response.body)["uid"]).toBeDefined()
    expect(read(sim, "trainjobs", "dry")).toBeUndefined()
  })

  it("answers 404 for a namespace that does not exist", () => {
    const response = call(bareSimulator(), { verb: "create", ...at("trainjobs", "nowhere"), body: trainJob("x") })
    expect(response.code).toBe(404)
    expect(status(response)).toMatchObject({ reason: "NotFound", message: 'namespaces "nowhere" not found', details: { name: "nowhere", kind: "namespaces" } })
  })

  it("refuses bodies of the wrong kind, version or namespace, and a resourceVersion", () => {
    const sim = bareSimulator()
    const send = (body: KubeObject) => call(sim, { verb: "create", ...at("trainjobs"), body })
    expect(send({ ...trainJob("a"), kind: "Workload" }).code).toBe(400)
    expect(send({ ...trainJob("a"), apiVersion: "trainer.kubeflow.org/v2" }).code).toBe(400)
    const { apiVersion: _dropped, ...versionless } = trainJob("a")
    expect(send(versionless).code).toBe(400)
    expect(send(trainJob("a", {}, { namespace: "other" })).code).toBe(400)
    const withVersion = send(trainJob("a", {}, { resourceVersion: "5" }))
    expect(withVersion.code).toBe(400)
    expect(status(withVersion)["message"]).toBe("resourceVersion should not be set on objects to be created")
  })

  it("ignores a namespace for cluster-scoped objects and keeps the requested version", () => {
    const sim = bareSimulator()
    const check = created(sim, "admissionchecks", { apiVersion: "kueue.x-k8s.io/v1beta1", kind: "AdmissionCheck", metadata: { name: "ac" }, spec: { controllerName: "x.io/c" } })
    expect(meta(check)["namespace"]).toBeUndefined()
    expect(check.apiVersion).toBe("kueue.x-k8s.io/v1beta2")
  })

  it("calls every admission of the resource, in order, on create and update", () => {
    const sim = bareSimulator()
    const seen: Array<string> = []
    const labeller = (name: string): Admission => ({
      name,
      resource: "trainjobs",
      admit: (operation, object, old) => {
        seen.push(`${name}:${operation}:${old === undefined ? "new" : "old"}`)
        const labels = { ...((meta(object)["labels"] as Record<string, string> | undefined) ?? {}), [name]: "yes" }
        return { object: { ...object, metadata: { ...meta(object), labels } } }
      }
    })
    sim.addAdmission(labeller("first.example.org"))
    sim.addAdmission(labeller("second.example.org"))
    const job = created(sim, "trainjobs", trainJob("admitted"))
    expect(meta(job)["labels"]).toEqual({ "first.example.org": "yes", "second.example.org": "yes" })
    call(sim, { verb: "patch", ...at("trainjobs"), name: "admitted", patchType: "merge", body: { spec: { suspend: true } } })
    expect(seen).toEqual(["first.example.org:create:new", "second.example.org:create:new", "first.example.org:update:old", "second.example.org:update:old"])
  })

  it("reports a denial, and validates what an admission returns", () => {
    const sim = bareSimulator()
    sim.addAdmission({ name: "deny.example.org", resource: "trainjobs", admit: (_op, object) => (meta(object)["name"] === "no" ? { denied: ["spec.runtimeRef: runtime not found", "second reason"] } : { object: { ...object, spec: { ...(object["spec"] as object), activeDeadlineSeconds: 0 } } }) })
    const denied = call(sim, { verb: "create", ...at("trainjobs"), body: trainJob("no") })
    // As controller-runtime's webhooks deny: 403 Forbidden, the webhook named in the message, no details.
    expect(denied.code).toBe(403)
    expect(status(denied)).toMatchObject({ code: 403, reason: "Forbidden", message: 'admission webhook "deny.example.org" denied the request: spec.runtimeRef: runtime not found; second reason' })
    expect(status(denied)["details"]).toBeUndefined()
    const broken = call(sim, { verb: "create", ...at("trainjobs"), body: trainJob("yes") })
    expect(broken.code).toBe(422)
    expect(status(broken)["details"]).toMatchObject({ causes: [{ field: "spec.activeDeadlineSeconds" }] })
  })

  it("installs Trainer's webhook by default, which needs the runtime to exist", () => {
    const sim = new Simulator({ seed: 1 })
    expect(call(sim, { verb: "create", ...at("trainjobs"), body: trainJob("orphan") }).code).toBeGreaterThanOrEqual(400)
  })
})
