// managedFields on every write and server-side apply, through the simulator's verbs; what is checked
// is what the store holds.
import { test as propTest, fc } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { ApiRequest, KubeObject } from "../src/Api.ts"
import { pathsOf } from "../src/apiserver/managed/FieldSet.ts"
import type { ManagedEntry } from "../src/apiserver/managed/ManagedFields.ts"
import { Simulator } from "../src/Simulator.ts"
import { at, bareSimulator, call, created, meta, namespace, read, status, trainJob } from "./SimFixture.ts"

const managed = (object: KubeObject | undefined): ReadonlyArray<ManagedEntry> => (meta(object)["managedFields"] ?? []) as ReadonlyArray<ManagedEntry>
const entry = (object: KubeObject | undefined, manager: string, operation = "Update"): ManagedEntry | undefined =>
  managed(object).find((e) => e.manager === manager && e.operation === operation)

const applyTo = (sim: Simulator, resource: string, name: string, body: unknown, extra: Partial<ApiRequest> = {}) =>
  call(sim, { verb: "patch", ...at(resource), name, patchType: "apply", body, fieldManager: "m1", ...extra })

const labelled = (name: string, labels: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject => trainJob(name, extra, { labels })

describe("managedFields", () => {
  it("records a create as the fieldManager's Update of every field it set, defaults included", () => {
    const sim = bareSimulator()
    call(sim, { verb: "create", ...at("trainjobs"), body: labelled("c", { team: "a" }), fieldManager: "kubectl-create" })
    const stored = read(sim, "trainjobs", "c")
    expect(managed(stored)).toEqual([
      {
        manager: "kubectl-create",
        operation: "Update",
        apiVersion: "trainer.kubeflow.org/v1alpha1",
        time: "2026-01-01T00:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: {
          "f:metadata": { "f:labels": { ".": {}, "f:team": {} } },
          "f:spec": {
            "f:managedBy": {},
            "f:runtimeRef": { "f:apiGroup": {}, "f:kind": {}, "f:name": {} },
            "f:suspend": {}
          }
        }
      }
    ])
  })

  it("names the manager after the User-Agent's program when no fieldManager is given", () => {
    const sim = bareSimulator()
    call(sim, { verb: "create", ...at("trainjobs"), body: trainJob("u"), userAgent: "kubectl/v1.33.0 (linux/amd64) kubernetes/abc" })
    expect(entry(read(sim, "trainjobs", "u"), "kubectl")).toBeDefined()
  })

  it("gives an update's changed fields to its manager, takes them from the others, and drops removed ones from all", () => {
    const sim = bareSimulator()
    call(sim, { verb: "create", ...at("trainjobs"), body: labelled("u", { a: "1", b: "1" }), fieldManager: "creator" })
    const patch = (body: unknown, fieldManager: string) => call(sim, { verb: "patch", ...at("trainjobs"), name: "u", patchType: "merge", body, fieldManager })
    expect(patch({ metadata: { labels: { a: "2", b: null, c: "1" } } }, "editor").code).toBe(200)
    const stored = read(sim, "trainjobs", "u")
    expect(entry(stored, "editor")?.fieldsV1).toEqual({ "f:metadata": { "f:labels": { "f:a": {}, "f:c": {} } } })
    // The creator keeps the labels map itself and its spec, and loses a (changed) and b (removed).
    expect(entry(stored, "creator")?.fieldsV1["f:metadata"]).toEqual({ "f:labels": {} })
    const revision = meta(stored)["resourceVersion"]
    // Writing the same values again changes nothing, managedFields included.
    expect(patch({ metadata: { labels: { a: "2" } } }, "third").code).toBe(200)
    expect(meta(read(sim, "trainjobs", "u"))["resourceVersion"]).toBe(revision)
  })

  it("records status writes with subresource status, and the controllers under their upstream names", () => {
    const sim = new Simulator({ seed: 3, objects: [{ apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "ClusterTrainingRuntime", metadata: { name: "torch-distributed" }, spec: { mlPolicy: { numNodes: 1, torch: {} }, template: { spec: { replicatedJobs: [{ name: "node", template: { metadata: { labels: { "trainer.kubeflow.org/trainjob-ancestor-step": "trainer" } }, spec: { template: { spec: { containers: [{ name: "node", image: "x" }] } } } } }] } } } }] })
    created(sim, "trainjobs", trainJob("run"))
    sim.advance(5_000)
    const job = read(sim, "trainjobs", "run")
    const trainer = managed(job).find((e) => e.manager === "trainer" && e.subresource === "status")
    expect(trainer?.operation).toBe("Update")
    expect(Object.keys(trainer?.fieldsV1["f:status"] ?? {})).toContain("f:conditions")
    const pods = call(sim, { verb: "list", ...at("pods") }).body as { items: ReadonlyArray<KubeObject> }
    const pod = pods.items[0]
    expect(managed(pod).map((e) => [e.manager, e.subresource ?? ""])).toEqual(expect.arrayContaining([["kube-controller-manager", ""], ["kubelet", "status"]]))
    const jobs = call(sim, { verb: "list", ...at("jobs") }).body as { items: ReadonlyArray<KubeObject> }
    expect(managed(jobs.items[0]).map((e) => e.manager)).toContain("manager")
  })

  it("refuses a fieldManager over 128 bytes, and force on anything but apply", () => {
    const sim = bareSimulator()
    const long = call(sim, { verb: "create", ...at("trainjobs"), body: trainJob("l"), fieldManager: "m".repeat(129) })
    expect(long.code).toBe(422)
    expect(status(long)["message"]).toBe('CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes')
    created(sim, "trainjobs", trainJob("f"))
    const forced = call(sim, { verb: "patch", ...at("trainjobs"), name: "f", patchType: "merge", body: {}, force: true })
    expect(forced.code).toBe(422)
    expect(status(forced)["message"]).toBe('PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch')
  })
})

describe("server-side apply", () => {
  it("requires a fieldManager", () => {
    const sim = bareSimulator()
    const refused = call(sim, { verb: "patch", ...at("trainjobs"), name: "x", patchType: "apply", body: trainJob("x") })
    expect(refused.code).toBe(422)
    expect(status(refused)["message"]).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch')
    expect(read(sim, "trainjobs", "x")).toBeUndefined()
  })

  it("creates a missing object, its manager owning exactly the configuration's fields", () => {
    const sim = bareSimulator()
    const answer = applyTo(sim, "trainjobs", "new", labelled("new", { a: "1" }))
    expect(answer.code).toBe(201)
    const stored = read(sim, "trainjobs", "new")
    expect(managed(stored)).toEqual([
      expect.objectContaining({
        manager: "m1",
        operation: "Apply",
        fieldsV1: { "f:metadata": { "f:labels": { ".": {}, "f:a": {} } }, "f:spec": { "f:runtimeRef": { "f:name": {} } } }
      })
    ])
    // Defaults are set, and no one owns them.
    expect((stored?.["spec"] as Record<string, unknown>)["suspend"]).toBe(false)
  })

  propTest.prop([fc.dictionary(fc.constantFrom("a", "b", "c", "d"), fc.constantFrom("1", "2"))])("applying the same configuration twice changes nothing", (labels) => {
    const sim = bareSimulator()
    expect(applyTo(sim, "trainjobs", "same", labelled("same", labels)).code).toBe(201)
    const first = read(sim, "trainjobs", "same")
    expect(applyTo(sim, "trainjobs", "same", labelled("same", labels)).code).toBe(200)
    expect(read(sim, "trainjobs", "same")).toEqual(first)
  })

  it("removes a field the manager no longer sets when it alone owns it, and keeps one another manager owns", () => {
    const sim = bareSimulator()
    applyTo(sim, "trainjobs", "r", labelled("r", { solo: "1", shared: "1" }))
    // m2 applies the same value of `shared`: the two share it, with no conflict.
    expect(applyTo(sim, "trainjobs", "r", labelled("r", { shared: "1" }), { fieldManager: "m2" }).code).toBe(200)
    applyTo(sim, "trainjobs", "r", labelled("r", {}))
    const stored = read(sim, "trainjobs", "r")
    expect(meta(stored)["labels"]).toEqual({ shared: "1" })
    expect(entry(stored, "m2", "Apply")?.fieldsV1).toEqual({ "f:metadata": { "f:labels": { ".": {}, "f:shared": {} } }, "f:spec": { "f:runtimeRef": { "f:name": {} } } })
  })

  it("answers 409 naming each conflict as the real server does, and force takes the fields", () => {
    const sim = bareSimulator()
    applyTo(sim, "trainjobs", "c", labelled("c", { a: "1", b: "1" }))
    call(sim, { verb: "patch", ...at("trainjobs"), name: "c", patchType: "merge", body: { spec: { suspend: true } }, fieldManager: "kubectl-edit" })
    const one = applyTo(sim, "trainjobs", "c", labelled("c", { a: "2" }), { fieldManager: "m2" })
    expect(one.code).toBe(409)
    expect(status(one)).toMatchObject({
      reason: "Conflict",
      message: 'Apply failed with 1 conflict: conflict with "m1": .metadata.labels.a',
      details: { causes: [{ reason: "FieldManagerConflict", message: 'conflict with "m1"', field: ".metadata.labels.a" }] }
    })
    const two = applyTo(sim, "trainjobs", "c", labelled("c", { a: "2" }, { suspend: false }), { fieldManager: "m2" })
    expect(status(two)["message"]).toBe(
      'Apply failed with 2 conflicts: conflicts with "kubectl-edit" using trainer.kubeflow.org/v1alpha1:\n- .spec.suspend\nconflicts with "m1":\n- .metadata.labels.a'
    )
    expect(meta(read(sim, "trainjobs", "c"))["labels"]).toEqual({ a: "1", b: "1" })
    expect(applyTo(sim, "trainjobs", "c", labelled("c", { a: "2" }), { fieldManager: "m2", force: true }).code).toBe(200)
    const stored = read(sim, "trainjobs", "c")
    expect(meta(stored)["labels"]).toEqual({ a: "2", b: "1" })
    expect(entry(stored, "m1", "Apply")?.fieldsV1["f:metadata"]).toEqual({ "f:labels": { ".": {}, "f:b": {} } })
  })

  it("merges keyed lists item by item, in the parts the field trees leave open too", () => {
    const sim = bareSimulator()
    // A runtime whose one replicated job's container carries `env`: replicatedJobs, containers and env are all keyed by name.
    const runtime = (env: ReadonlyArray<Record<string, string>>): KubeObject => ({
      apiVersion: "trainer.kubeflow.org/v1alpha1",
      kind: "TrainingRuntime",
      metadata: { name: "rt" },
      spec: { template: { spec: { replicatedJobs: [{ name: "node", template: { spec: { template: { spec: { containers: [{ name: "c", env }] } } } } }] } } }
    })
    const envOf = (object: KubeObject | undefined): unknown =>
      (object?.["spec"] as any).template.spec.replicatedJobs[0].template.spec.template.spec.containers[0].env
    expect(applyTo(sim, "trainingruntimes", "rt", runtime([{ name: "A", value: "1" }])).code).toBe(201)
    expect(applyTo(sim, "trainingruntimes", "rt", runtime([{ name: "B", value: "2" }]), { fieldManager: "m2" }).code).toBe(200)
    expect(envOf(read(sim, "trainingruntimes", "rt"))).toEqual([{ name: "A", value: "1" }, { name: "B", value: "2" }])
    expect(applyTo(sim, "trainingruntimes", "rt", runtime([])).code).toBe(200)
    const after = read(sim, "trainingruntimes", "rt")
    expect(envOf(after)).toEqual([{ name: "B", value: "2" }])
    const owned = pathsOf(entry(after, "m2", "Apply")?.fieldsV1 ?? {}).map((p) => p.join("/"))
    expect(owned).toContain('f:spec/f:template/f:spec/f:replicatedJobs/k:{"name":"node"}/f:template/f:spec/f:template/f:spec/f:containers/k:{"name":"c"}/f:env/k:{"name":"B"}/f:value')
  })

  it("applies status through the status subresource, recorded as such", () => {
    const sim = bareSimulator()
    created(sim, "trainjobs", trainJob("s"))
    const config = { ...trainJob("s"), status: { conditions: [{ type: "Created", status: "True", reason: "R", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" }] } }
    expect(applyTo(sim, "trainjobs", "s", config, { subresource: "status" }).code).toBe(200)
    const stored = read(sim, "trainjobs", "s")
    expect(managed(stored).find((e) => e.subresource === "status")).toMatchObject({ manager: "m1", operation: "Apply" })
    expect((stored?.["status"] as { conditions: ReadonlyArray<unknown> }).conditions).toHaveLength(1)
  })

  // Random writes to a Namespace's labels by three managers: every label is owned by someone, and
  // everything owned is there.
  const op = fc.oneof(
    fc.record({ kind: fc.constant("apply" as const), manager: fc.constantFrom("m1", "m2", "m3"), labels: fc.dictionary(fc.constantFrom("a", "b", "c"), fc.constantFrom("1", "2")), force: fc.boolean() }),
    fc.record({ kind: fc.constant("merge" as const), manager: fc.constantFrom("e1", "e2"), labels: fc.dictionary(fc.constantFrom("a", "b", "c"), fc.constantFrom("1", "2", null)) })
  )
  propTest.prop([fc.array(op, { maxLength: 12 })])("the labels are exactly the union of the labels the managers own", (ops) => {
    const sim = bareSimulator()
    created(sim, "namespaces", namespace("n"))
    for (const o of ops) {
      const body = o.kind === "apply" ? { ...namespace("n"), metadata: { name: "n", labels: o.labels } } : { metadata: { labels: o.labels } }
      call(sim, { verb: "patch", ...at("namespaces"), name: "n", patchType: o.kind, body, fieldManager: o.manager, ...(o.kind === "apply" ? { force: o.force } : {}) })
    }
    const stored = read(sim, "namespaces", "n")
    const owned = new Set(managed(stored).flatMap((e) => pathsOf(e.fieldsV1).filter((p) => p.length === 3 && p[1] === "f:labels").map((p) => p[2]?.slice(2))))
    expect([...owned].sort()).toEqual(Object.keys(meta(stored)["labels"] as object).sort())
  })
})
