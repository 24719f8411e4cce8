import { describe, expect, it } from "vitest"
import type { ApiResponse, KubeObject } from "../src/Api.ts"
import { at, bareSimulator, call, clusterRuntime, created, meta, namespace, ownerRef, status, trainJob, workload } from "./SimFixture.ts"

const causes = (response: ApiResponse): ReadonlyArray<{ reason: string; field: string; message: string }> => {
  expect(response.code, JSON.stringify(response.body)).toBe(422)
  return (status(response)["details"] as { causes: ReadonlyArray<{ reason: string; field: string; message: string }> }).causes
}
const fields = (response: ApiResponse) => causes(response).map((c) => `${c.field}:${c.reason}`)

const create = (resource: string, body: KubeObject) => call(bareSimulator(), { verb: "create", ...at(resource), body })

describe("TrainJob validation", () => {
  it("reports every problem at once, with the Kind in details and each field in causes", () => {
    const response = create(
      "trainjobs",
      trainJob("Not_A_Label", {
        runtimeRef: { kind: "JobSet", name: "" },
        trainer: { image: "i".repeat(501), command: Array(129).fill("c"), args: Array(129).fill("a"), env: Array.from({ length: 129 }, (_, i) => ({ name: `E${i}` })) },
        runtimePatches: Array.from({ length: 17 }, (_, i) => ({ manager: `example.org/m${i}` })),
        managedBy: "someone.else/controller",
        activeDeadlineSeconds: 0
      })
    )
    expect(status(response)["details"]).toMatchObject({ name: "Not_A_Label", group: "trainer.kubeflow.org", kind: "TrainJob" })
    expect(status(response)["message"]).toMatch(/^TrainJob\.trainer\.kubeflow\.org "Not_A_Label" is invalid: \[/)
    expect(fields(response)).toEqual([
      "metadata.name:FieldValueInvalid",
      "metadata.name:FieldValueInvalid",
      "spec.runtimeRef.name:FieldValueInvalid",
      "spec.runtimeRef.kind:FieldValueNotSupported",
      "spec.trainer.image:FieldValueTooLong",
      "spec.trainer.command:FieldValueTooMany",
      "spec.trainer.args:FieldValueTooMany",
      "spec.trainer.env:FieldValueTooMany",
      "spec.runtimePatches:FieldValueTooMany",
      "spec.managedBy:FieldValueInvalid",
      "spec.activeDeadlineSeconds:FieldValueInvalid"
    ])
  })

  it("takes the limits themselves", () => {
    const sim = bareSimulator()
    const name = `a${"b".repeat(62)}`
    created(
      sim,
      "trainjobs",
      trainJob(name, {
        runtimeRef: { kind: "TrainingRuntime", name: "r".repeat(253) },
        trainer: { image: "i".repeat(500), command: Array(128).fill("c"), env: Array.from({ length: 128 }, (_, i) => ({ name: `E${i}` })) },
        runtimePatches: Array.from({ length: 16 }, (_, i) => ({ manager: `example.org/m${i}` })),
        managedBy: "kueue.x-k8s.io/multikueue",
        activeDeadlineSeconds: 1
      })
    )
    expect(fields(call(sim, { verb: "create", ...at("trainjobs"), body: trainJob(`${name}c`) }))).toEqual(["metadata.name:FieldValueInvalid"])
  })

  it("requires runtimeRef and its name, and unique keys in keyed lists", () => {
    expect(fields(create("trainjobs", { ...trainJob("a"), spec: {} }))).toEqual(["spec.runtimeRef:FieldValueRequired"])
    expect(fields(create("trainjobs", trainJob("a", { runtimeRef: { kind: "TrainingRuntime" } })))).toEqual(["spec.runtimeRef.name:FieldValueRequired"])
    const dup = create("trainjobs", trainJob("a", { runtimePatches: [{ manager: "a.io/x" }, { manager: "a.io/x" }, {}], trainer: { env: [{ name: "A" }, { name: "A" }] } }))
    expect(fields(dup)).toEqual(["spec.trainer.env[1]:FieldValueDuplicate", "spec.runtimePatches[1]:FieldValueDuplicate", "spec.runtimePatches[2].manager:FieldValueRequired"])
  })

  it("keeps runtimeRef, trainer, managedBy and activeDeadlineSeconds immutable", () => {
    const sim = bareSimulator()
    created(sim, "trainjobs", trainJob("fixed", { trainer: { image: "a" }, activeDeadlineSeconds: 10 }))
    const response = call(sim, {
      verb: "patch",
      ...at("trainjobs"),
      name: "fixed",
      patchType: "merge",
      body: { spec: { runtimeRef: { name: "other" }, trainer: { image: "b" }, managedBy: "kueue.x-k8s.io/multikueue", activeDeadlineSeconds: 20 } }
    })
    expect(causes(response).map((c) => [c.field, c.message])).toEqual([
      ["spec.runtimeRef", 'Invalid value: "object": field is immutable'],
      ["spec.trainer", 'Invalid value: "object": field is immutable'],
      ["spec.managedBy", 'Invalid value: "kueue.x-k8s.io/multikueue": field is immutable'],
      ["spec.activeDeadlineSeconds", "Invalid value: 20: field is immutable"]
    ])
  })

  it("lets runtimePatches change only while the job is suspended", () => {
    const sim = bareSimulator()
    created(sim, "trainjobs", trainJob("running"))
    const patch = (body: unknown) => call(sim, { verb: "patch", ...at("trainjobs"), name: "running", patchType: "merge", body })
    expect(fields(patch({ spec: { runtimePatches: [{ manager: "example.org/a" }] } }))).toEqual(["spec.runtimePatches:FieldValueForbidden"])
    expect(patch({ spec: { suspend: true } }).code).toBe(200)
    expect(patch({ spec: { runtimePatches: [{ manager: "example.org/a" }] } }).code).toBe(200)
  })
})

describe("metadata validation, for every resource", () => {
  it("checks label keys and values and annotation keys", () => {
    const response = create("trainjobs", trainJob("labels", {}, { labels: { "bad key": "v", "example.org/ok": "-bad-", long: "x".repeat(64) }, annotations: { "/nope": "x" } }))
    expect(fields(response)).toEqual([
      "metadata.labels:FieldValueInvalid",
      "metadata.labels:FieldValueInvalid",
      "metadata.labels:FieldValueInvalid",
      "metadata.annotations:FieldValueInvalid"
    ])
  })

  it("limits all annotations together to 256 KiB", () => {
    const half = "v".repeat(131_072)
    expect(fields(create("trainjobs", trainJob("big", {}, { annotations: { a: half, b: half } })))).toEqual(["metadata.annotations:FieldValueTooLong"])
    expect(create("trainjobs", trainJob("fits", {}, { annotations: { a: half, b: half.slice(2) } })).code).toBe(201)
  })

  it("checks names as DNS-1123 subdomains, and namespaces as labels", () => {
    expect(fields(create("clustertrainingruntimes", clusterRuntime("Upper")))).toEqual(["metadata.name:FieldValueInvalid"])
    expect(create("clustertrainingruntimes", clusterRuntime("dotted.name-1")).code).toBe(201)
    expect(fields(create("namespaces", namespace("dotted.name")))).toEqual(["metadata.name:FieldValueInvalid"])
  })

  it("checks owner references", () => {
    const sim = bareSimulator()
    const owner = created(sim, "trainjobs", trainJob("owner"))
    const response = call(sim, {
      verb: "create",
      ...at("workloads"),
      body: workload("wl", { ownerReferences: [{ ...ownerRef(owner), controller: true }, { ...ownerRef(owner), name: "other", controller: true }, { kind: "TrainJob" }] })
    })
    expect(fields(response)).toEqual([
      "metadata.ownerReferences.apiVersion:FieldValueInvalid",
      "metadata.ownerReferences.name:FieldValueInvalid",
      "metadata.ownerReferences.uid:FieldValueInvalid",
      "metadata.ownerReferences:FieldValueInvalid"
    ])
    const clusterScoped = call(sim, { verb: "create", ...at("clustertrainingruntimes"), body: clusterRuntime("rt", { ownerReferences: [ownerRef(owner)] }) })
    expect(causes(clusterScoped)[0]?.message).toContain("cluster-scoped object cannot have a namespaced owner")
    const ownedByCluster = created(sim, "clustertrainingruntimes", clusterRuntime("owner-rt"))
    expect(call(sim, { verb: "create", ...at("trainjobs"), body: trainJob("owned", {}, { ownerReferences: [ownerRef(ownedByCluster)] }) }).code).toBe(201)
  })
})

describe("training runtimes", () => {
  it("allow at most one ML policy and refuse an empty spec or template", () => {
    const runtime = (spec: unknown): KubeObject => ({ ...clusterRuntime("rt"), spec })
    expect(fields(create("clustertrainingruntimes", runtime({ mlPolicy: { torch: {}, mpi: {} }, template: { spec: {} } })))).toEqual(["spec.mlPolicy:FieldValueInvalid"])
    expect(fields(create("clustertrainingruntimes", runtime({})))).toEqual(["spec:FieldValueInvalid"])
    expect(fields(create("trainingruntimes", { ...runtime({ template: {} }), kind: "TrainingRuntime" }))).toEqual(["spec.template:FieldValueInvalid"])
    expect(create("clustertrainingruntimes", runtime({ mlPolicy: { numNodes: 2, jax: {} }, template: { spec: {} } })).code).toBe(201)
  })
})

describe("Kueue objects", () => {
  it("checks a Workload's pod sets and admission check states, and keeps pod sets immutable", () => {
    const sim = bareSimulator()
    expect(fields(call(sim, { verb: "create", ...at("workloads"), body: { ...workload("w"), spec: {} } }))).toEqual(["spec.podSets:FieldValueRequired"])
    expect(fields(call(sim, { verb: "create", ...at("workloads"), body: { ...workload("w"), spec: { podSets: [] } } }))).toEqual(["spec.podSets:FieldValueInvalid"])
    const twice = { ...workload("w"), spec: { podSets: [{ name: "Bad", count: -1 }, { name: "Bad", template: {} }] } }
    expect(fields(call(sim, { verb: "create", ...at("workloads"), body: twice }))).toEqual([
      "spec.podSets[0].name:FieldValueInvalid",
      "spec.podSets[0].count:FieldValueInvalid",
      "spec.podSets[0].template:FieldValueRequired",
      "spec.podSets[1].name:FieldValueInvalid",
      "spec.podSets[1].name:FieldValueDuplicate"
    ])
    const stored = created(sim, "workloads", { ...workload("w"), spec: { podSets: [{ template: {} }] } })
    expect((stored["spec"] as { podSets: unknown }).podSets).toEqual([{ name: "main", count: 1, template: {} }])
    const patch = (body: unknown, subresource?: "status") =>
      call(sim, { verb: "patch", ...at("workloads"), name: "w", patchType: "merge", body, ...(subresource === undefined ? {} : { subresource }) })
    expect(fields(patch({ spec: { podSets: [{ name: "other", template: {} }] } }))).toEqual(["spec.podSets:FieldValueInvalid"])
    expect(fields(patch({ status: { admissionChecks: [{ name: "c", state: "Maybe" }] } }, "status"))).toEqual(["status.admissionChecks[0].state:FieldValueNotSupported"])
    expect(patch({ status: { admissionChecks: [{ name: "c", state: "Ready" }] } }, "status").code).toBe(200)
  })

  it("requires an AdmissionCheck's controllerName and keeps it", () => {
    const sim = bareSimulator()
    const body = (controllerName?: string): KubeObject => ({ apiVersion: "kueue.x-k8s.io/v1beta2", kind: "AdmissionCheck", metadata: { name: "ac" }, spec: controllerName === undefined ? {} : { controllerName } })
    expect(fields(call(sim, { verb: "create", ...at("admissionchecks"), body: body() }))).toEqual(["spec.controllerName:FieldValueRequired"])
    const stored = created(sim, "admissionchecks", body("example.org/checker"))
    const changed = call(sim, { verb: "update", ...at("admissionchecks"), name: "ac", body: { ...stored, spec: { controllerName: "example.org/other" } } })
    expect(fields(changed)).toEqual(["spec.controllerName:FieldValueInvalid"])
    expect(meta(stored)["name"]).toBe("ac")
  })
})

describe("validation after admission (the checked object)", () => {
  it("looks again at every part a webhook replaced, and skips only the frozen parts it kept", async () => {
    const { validate } = await import("../src/apiserver/validation/Validation.ts")
    const { freezeJson } = await import("../src/apiserver/store/JsonValue.ts")
    const { builtin } = await import("./BuiltinKinds.ts")
    const resource = builtin.byResource("trainjobs")
    if (resource === undefined) throw new Error("no trainjobs")
    const checked: KubeObject = freezeJson({ apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", ...trainJob("ok", { runtimeRef: { name: "torch" } }) })
    expect(validate(builtin, resource, checked, undefined)).toEqual([])
    // A new spec with a wrong type and new metadata with a bad label: both looked at again.
    // (Frozen too: being frozen is not being the checked part.)
    const replaced = { ...checked, metadata: freezeJson({ ...meta(checked), labels: { "bad key!": "v" } }), spec: freezeJson({ ...(checked["spec"] as object), suspend: "yes" }) }
    expect(validate(builtin, resource, replaced, undefined, checked).map((e) => e.field)).toEqual(validate(builtin, resource, replaced, undefined).map((e) => e.field))
    expect(validate(builtin, resource, replaced, undefined, checked).map((e) => e.field)).toEqual(["metadata.labels", "spec.suspend"])
    // The kept frozen parts are the checked ones: nothing new to report, and the same answer as a full look.
    const kept = { ...checked, spec: checked["spec"] }
    expect(validate(builtin, resource, kept, undefined, checked)).toEqual([])
  })
})
