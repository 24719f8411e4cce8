// Fields the CRDs do not define: pruned (silently, or named in a Warning header) or, with
// fieldValidation=Strict, refused with every one named; and the types of the fields they do define.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { ApiRequest, ApiResponse, FieldValidation, KubeObject } from "../src/Api.ts"
import { type FieldTree, prune, quantityPattern, typeErrors } from "../src/apiserver/validation/FieldTree.ts"
import { freezeJson } from "../src/apiserver/store/JsonValue.ts"
import { fieldsOf } from "./BuiltinKinds.ts"
import { at, bareSimulator, call, clusterRuntime, created, read, status, trainJob, workload } from "./SimFixture.ts"

const jobWithUnknowns = (name: string): KubeObject =>
  trainJob(name, { labels: { a: "b" }, trainer: { image: "example.org/train:1", bogusField: 1 } }, { madeUp: true })

const createJob = (body: KubeObject, fieldValidation?: FieldValidation): { sim: ReturnType<typeof bareSimulator>; response: ApiResponse } => {
  const sim = bareSimulator()
  const request: ApiRequest = { verb: "create", ...at("trainjobs"), body, ...(fieldValidation === undefined ? {} : { fieldValidation }) }
  return { sim, response: call(sim, request) }
}

const specOf = (object: KubeObject | undefined): Record<string, unknown> => (object?.["spec"] ?? {}) as Record<string, unknown>

describe("fieldValidation on create", () => {
  it("Strict refuses with 400 BadRequest naming every unknown field, and stores nothing", () => {
    const { sim, response } = createJob(jobWithUnknowns("strict"), "Strict")
    expect(response).toEqual({
      code: 400,
      body: {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message:
          'TrainJob in version "v1alpha1" cannot be handled as a TrainJob: strict decoding error: unknown field "metadata.madeUp", unknown field "spec.labels", unknown field "spec.trainer.bogusField"',
        reason: "BadRequest",
        code: 400
      }
    })
    expect(read(sim, "trainjobs", "strict")).toBeUndefined()
  })

  it("Warn stores the object without them and names each in a Warning header", () => {
    const { sim, response } = createJob(jobWithUnknowns("warned"), "Warn")
    expect(response.code).toBe(201)
    expect(response.headers).toEqual({
      Warning: '299 - "unknown field \\"metadata.madeUp\\"", 299 - "unknown field \\"spec.labels\\"", 299 - "unknown field \\"spec.trainer.bogusField\\""'
    })
    const stored = read(sim, "trainjobs", "warned")
    expect(stored?.metadata?.["madeUp"]).toBeUndefined()
    expect(specOf(stored)["labels"]).toBeUndefined()
    expect(specOf(stored)["trainer"]).toEqual({ image: "example.org/train:1" })
    expect(response.body).toEqual(stored)
  })

  it("Ignore drops them silently", () => {
    const { sim, response } = createJob(jobWithUnknowns("ignored"), "Ignore")
    expect(response.code).toBe(201)
    expect(response.headers).toBeUndefined()
    expect(specOf(read(sim, "trainjobs", "ignored"))["trainer"]).toEqual({ image: "example.org/train:1" })
  })

  it("without a directive, behaves as Warn (the API server's default)", () => {
    const warned = createJob(jobWithUnknowns("a"), "Warn").response
    const unsaid = createJob(jobWithUnknowns("a")).response
    expect(unsaid).toEqual(warned)
  })

  it("sends no Warning when every field is known", () => {
    const { response } = createJob(trainJob("clean", { trainer: { image: "example.org/train:1" } }), "Strict")
    expect(response.code).toBe(201)
    expect(response.headers).toBeUndefined()
  })
})

describe("fieldValidation on update and patch", () => {
  it("refuses a strict merge patch that adds an unknown field, and prunes it otherwise", () => {
    const sim = bareSimulator()
    created(sim, "trainjobs", trainJob("patched"))
    const patch = (fieldValidation: FieldValidation) =>
      call(sim, { verb: "patch", ...at("trainjobs"), name: "patched", patchType: "merge", body: { metadata: { labels: { x: "y" } }, spec: { suspend: true, extra: 1 } }, fieldValidation })
    expect(status(patch("Strict"))).toMatchObject({ code: 400, reason: "BadRequest", message: expect.stringContaining('strict decoding error: unknown field "spec.extra"') })
    expect(read(sim, "trainjobs", "patched")?.metadata?.["labels"]).toBeUndefined()
    const ignored = patch("Ignore")
    expect(ignored.code).toBe(200)
    expect(specOf(read(sim, "trainjobs", "patched"))).toMatchObject({ suspend: true })
    expect(specOf(read(sim, "trainjobs", "patched"))["extra"]).toBeUndefined()
  })

  it("prunes unknown status fields written through /status", () => {
    const sim = bareSimulator()
    const job = created(sim, "trainjobs", trainJob("reported"))
    const response = call(sim, { verb: "update", ...at("trainjobs"), name: "reported", subresource: "status", body: { ...job, status: { phase: "Running", jobsStatus: [{ name: "node", active: 1, weird: 2 }] } } })
    expect(response.code).toBe(200)
    expect(response.headers?.["Warning"]).toBe('299 - "unknown field \\"status.phase\\"", 299 - "unknown field \\"status.jobsStatus[0].weird\\""')
    expect(read(sim, "trainjobs", "reported")?.["status"]).toEqual({ jobsStatus: [{ name: "node", active: 1 }] })
  })
})

describe("what each kind defines", () => {
  it("keeps anything inside a runtime's pod spec (left open) but prunes the JobSet and Job levels above it", () => {
    const runtime = clusterRuntime("open")
    const container = { name: "node", image: "example.org/x:1", futureField: { deep: [1] } }
    const body = {
      ...runtime,
      spec: {
        mlPolicy: { numNodes: 1, torch: { numProcPerNode: "auto" } },
        template: { spec: { replicatedJobs: [{ name: "node", bogus: 1, template: { spec: { parallelism: 1, invented: true, template: { spec: { containers: [container], newPodField: "x" } } } } }] } }
      },
      status: { ready: true }
    }
    const response = call(bareSimulator(), { verb: "create", ...at("clustertrainingruntimes"), body, fieldValidation: "Strict" })
    expect(status(response)["message"]).toBe(
      'ClusterTrainingRuntime in version "v1alpha1" cannot be handled as a ClusterTrainingRuntime: strict decoding error: unknown field "spec.mlPolicy.torch.numProcPerNode", unknown field "spec.template.spec.replicatedJobs[0].bogus", unknown field "spec.template.spec.replicatedJobs[0].template.spec.invented", unknown field "status"'
    )
    const sim = bareSimulator()
    const stored = created(sim, "clustertrainingruntimes", body as KubeObject)
    expect(stored["status"]).toBeUndefined()
    expect(stored["spec"]).toEqual({
      mlPolicy: { numNodes: 1, torch: {} },
      template: { spec: { replicatedJobs: [{ name: "node", template: { spec: { parallelism: 1, template: { spec: { containers: [container], newPodField: "x" } } } } }] } }
    })
  })

  it("names unknown fields of Workloads and AdmissionChecks, whichever served version is used", () => {
    const sim = bareSimulator()
    const wl = workload("w")
    const strict = (resource: string, body: KubeObject, version?: string) =>
      status(call(sim, { verb: "create", ...at(resource), ...(version === undefined ? {} : { version }), body, fieldValidation: "Strict" }))["message"]
    expect(strict("workloads", { ...wl, spec: { ...(wl["spec"] as object), queueName: "q", preemptible: true } })).toBe(
      'Workload in version "v1beta2" cannot be handled as a Workload: strict decoding error: unknown field "spec.preemptible"'
    )
    expect(strict("workloads", { ...wl, apiVersion: "kueue.x-k8s.io/v1beta1", spec: { ...(wl["spec"] as object), priorityClassName: "high", colour: "red" } }, "v1beta1")).toBe(
      'Workload in version "v1beta1" cannot be handled as a Workload: strict decoding error: unknown field "spec.colour"'
    )
    expect(strict("admissionchecks", { apiVersion: "kueue.x-k8s.io/v1beta2", kind: "AdmissionCheck", metadata: { name: "ac" }, spec: { controllerName: "example.org/c", policy: "x" } })).toBe(
      'AdmissionCheck in version "v1beta2" cannot be handled as a AdmissionCheck: strict decoding error: unknown field "spec.policy"'
    )
  })
})

describe("types of the defined fields", () => {
  const causes = (response: ApiResponse) => {
    expect(response.code, JSON.stringify(response.body)).toBe(422)
    return (status(response)["details"] as { causes: ReadonlyArray<{ field: string; message: string }> }).causes
  }

  it("refuses an env value that is not a string and a resource quantity that is not a quantity", () => {
    const response = call(bareSimulator(), {
      verb: "create",
      ...at("trainjobs"),
      body: trainJob("typed", { trainer: { env: [{ name: "A", value: 1 }], numNodes: "2", resourcesPerNode: { limits: { cpu: "lots", memory: true, "nvidia.com/gpu": 1 }, requests: { cpu: "500m" } } } })
    })
    expect(causes(response).map((c) => c.field)).toEqual([
      "spec.trainer.env[0].value",
      "spec.trainer.numNodes",
      "spec.trainer.resourcesPerNode.limits.cpu",
      "spec.trainer.resourcesPerNode.limits.memory"
    ])
    expect(causes(response)[0]?.message).toBe("Invalid value: 1: spec.trainer.env[0].value in body must be of type string")
    expect(causes(response)[2]?.message).toBe(`Invalid value: "lots": spec.trainer.resourcesPerNode.limits.cpu in body should match '${quantityPattern.source}'`)
  })

  it("reports a field of the wrong type once, even when a rule checks it too", () => {
    const response = call(bareSimulator(), { verb: "create", ...at("trainjobs"), body: trainJob("once", { trainer: { image: 7, numProcPerNode: "auto" } }) })
    expect(causes(response).map((c) => c.field)).toEqual(["spec.trainer.image", "spec.trainer.numProcPerNode"])
  })

  test.prop([fc.constantFrom("1", "0", "500m", "1.5Gi", "2e3", "+.5", "-1k", "10E", "3Mi", "0.1")])("accepts quantities in Kubernetes' form", (quantity) => {
    expect(created(bareSimulator(), "trainjobs", trainJob("q", { trainer: { resourcesPerNode: { limits: { cpu: quantity } } } }))).toBeDefined()
  })

  test.prop([fc.string({ maxLength: 8 }).filter((s) => !quantityPattern.test(s))])("refuses every other string as a quantity", (text) => {
    const errors = typeErrors(fieldsOf("trainjobs"), { spec: { trainer: { resourcesPerNode: { requests: { memory: text } } } } })
    expect(errors.map((e) => e.field)).toEqual(["spec.trainer.resourcesPerNode.requests.memory"])
  })
})

// A random object shaped by a tree, using only the fields it defines (open parts get arbitrary JSON),
// and the same object with fields the tree does not define added at some of its object nodes, with
// the paths of those fields.
interface Shaped {
  readonly clean: unknown
  readonly polluted: unknown
  readonly unknown: ReadonlyArray<string>
}
const pathTo = (path: string, key: string) => (path === "" ? key : `${path}.${key}`)
const shapedBy = (tree: FieldTree, depth: number, path = ""): fc.Arbitrary<Shaped> => {
  const same = (value: unknown): Shaped => ({ clean: value, polluted: value, unknown: [] })
  if (tree === "open") return fc.jsonValue({ maxDepth: 2 }).map(same)
  if (typeof tree === "string") return fc.constantFrom("x", 1, true).map(same)
  if (depth <= 0) return fc.constant(same(undefined))
  if ("items" in tree) {
    return fc.integer({ min: 0, max: 2 }).chain((n) =>
      fc.tuple(...Array.from({ length: n }, (_, i) => shapedBy(tree.items, depth - 1, `${path}[${i}]`))).map((items) => ({
        clean: items.map((i) => i.clean),
        polluted: items.map((i) => i.polluted),
        unknown: items.flatMap((i) => i.unknown)
      }))
    )
  }
  const node = (keys: ReadonlyArray<string>, sub: (key: string) => FieldTree, extras: fc.Arbitrary<ReadonlyArray<string>>) =>
    fc.tuple(fc.subarray([...keys], { maxLength: Math.min(4, keys.length) }), extras).chain(([chosen, extra]) =>
      fc.tuple(...chosen.map((k) => shapedBy(sub(k), depth - 1, pathTo(path, k)).map((v) => [k, v] as const))).map((entries) => {
        const present = entries.filter(([, v]) => v.clean !== undefined && v.clean !== null)
        return {
          clean: Object.fromEntries(present.map(([k, v]) => [k, v.clean])),
          polluted: { ...Object.fromEntries(present.map(([k, v]) => [k, v.polluted])), ...Object.fromEntries(extra.map((k) => [k, 1])) },
          // Pruning names fields in the order it meets them: the defined ones first here, then the added ones.
          unknown: [...present.flatMap(([, v]) => v.unknown), ...extra.map((k) => pathTo(path, k))]
        }
      })
    )
  if ("values" in tree) return node(["k1", "k2"], () => tree.values, fc.constant([]))
  return node(Object.keys(tree.fields), (k) => tree.fields[k] ?? "open", fc.uniqueArray(fc.stringMatching(/^zz[a-z]{1,4}$/), { maxLength: 2 }))
}

const plurals = ["trainjobs", "trainingruntimes", "workloads", "admissionchecks", "namespaces"] as const
const shapedKind = fc.constantFrom(...plurals).chain((p) => fc.tuple(fc.constant(p), shapedBy(fieldsOf(p), 8)))

describe("prune", () => {
  test.prop([shapedKind])("keeps an object that uses only defined fields exactly as it is", ([plural, shaped]) => {
    expect(prune(fieldsOf(plural), shaped.clean)).toEqual({ value: shaped.clean, unknown: [] })
  })

  test.prop([shapedKind])("drops exactly the undefined fields added anywhere outside open parts, naming each, and is idempotent", ([plural, shaped]) => {
    const tree = fieldsOf(plural)
    const once = prune(tree, shaped.polluted)
    expect(once).toEqual({ value: shaped.clean, unknown: shaped.unknown })
    expect(prune(tree, once.value)).toEqual({ value: shaped.clean, unknown: [] })
  })
})

// A controller's object is handed over: what is kept of it is stored as it is, not copied first.
describe("prune of a handed-over value", () => {
  test.prop([shapedKind])("keeps the same fields and names the same unknown ones as the copying prune, in the same order", ([plural, shaped]) => {
    const tree = fieldsOf(plural)
    const copied = prune(tree, structuredClone(shaped.polluted))
    const kept = prune(tree, structuredClone(shaped.polluted), undefined, true)
    expect(kept).toEqual(copied)
    expect(JSON.stringify(kept.value)).toBe(JSON.stringify(copied.value))
  })

  test.prop([shapedKind])("hands back a value with nothing to prune itself", ([plural, shaped]) => {
    expect(prune(fieldsOf(plural), shaped.clean, undefined, true).value).toBe(shaped.clean)
  })

  it("builds anew only the levels that lose a field, in their order, keeping every other part itself", () => {
    const trainer = { image: "example.org/train:1", bogus: 1, numNodes: 2 }
    const runtimeRef = { name: "torch-distributed" }
    const body = { apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", metadata: { name: "j" }, spec: { runtimeRef, trainer, suspend: null } }
    const { value, unknown } = prune(fieldsOf("trainjobs"), body, undefined, true)
    const spec = (value as { spec: Record<string, unknown> }).spec
    expect(unknown).toEqual(["spec.trainer.bogus"])
    expect(JSON.stringify(spec)).toBe(JSON.stringify({ runtimeRef: { name: "torch-distributed" }, trainer: { image: "example.org/train:1", numNodes: 2 } }))
    expect(spec["runtimeRef"]).toBe(runtimeRef)
    expect(body.spec.trainer).toEqual({ image: "example.org/train:1", bogus: 1, numNodes: 2 })
    expect((value as { metadata: unknown }).metadata).toBe(body.metadata)
  })

  it("stores a controller's object pruned, its kept parts frozen in place", () => {
    const sim = bareSimulator()
    const client = sim.clientOf({ name: "test-controller", reconcile: () => {} })
    const labels = { team: "a" }
    const response = client.create("trainjobs", trainJob("handed", { trainer: { image: "example.org/train:1", bogus: 1 } }, { labels }))
    expect(response.code).toBe(201)
    const stored = sim.system.get("trainjobs", "default", "handed")
    expect(specOf(stored)["trainer"]).toEqual({ image: "example.org/train:1" })
    expect(stored?.metadata?.["labels"]).toEqual({ team: "a" })
    expect(Object.isFrozen(labels)).toBe(true)
    expect(response.headers?.["Warning"]).toContain('unknown field \\"spec.trainer.bogus\\"')
  })
})

describe("type checks of values that passed before", () => {
  const tree = fieldsOf("trainjobs")
  const specTree = typeof tree === "object" && "fields" in tree ? (tree.fields["spec"] ?? "open") : "open"

  it("skip only frozen parts held in the same place by a value that passed, and check everything else", () => {
    const trainer = freezeJson({ image: "example.org/train:1", numNodes: 2 })
    const before = { runtimeRef: { name: "r" }, trainer }
    // A bad field beside the kept part is still named.
    expect(typeErrors(specTree, { runtimeRef: { name: 7 }, trainer }, "spec", [before]).map((e) => e.field)).toEqual(["spec.runtimeRef.name"])
    // The same fields, not frozen, or frozen but another value, are checked again (and would be named if bad).
    const badTrainer = { image: 1, numNodes: "two" }
    expect(typeErrors(specTree, { trainer: badTrainer }, "spec", [{ trainer: badTrainer }]).map((e) => e.field)).toEqual(["spec.trainer.image", "spec.trainer.numNodes"])
    const frozenBad = freezeJson({ image: 1 })
    expect(typeErrors(specTree, { trainer: frozenBad }, "spec", [before]).map((e) => e.field)).toEqual(["spec.trainer.image"])
    // A frozen part another value holds in a different place is no proof for this one.
    expect(typeErrors(specTree, { trainer: frozenBad }, "spec", [{ runtimeRef: frozenBad }]).map((e) => e.field)).toEqual(["spec.trainer.image"])
  })

  test.prop([shapedKind])("find what a check with nothing passed finds, whatever passed value is given beside", ([plural, shaped]) => {
    const kindTree = fieldsOf(plural)
    if (typeof kindTree !== "object" || !("fields" in kindTree)) return
    for (const part of ["spec", "status"]) {
      const sub = kindTree.fields[part]
      const value = (shaped.clean as Record<string, unknown> | undefined)?.[part]
      if (sub === undefined || value === undefined) continue
      const frozen = freezeJson(structuredClone(value))
      expect(typeErrors(sub, frozen, part, [structuredClone(value), undefined])).toEqual(typeErrors(sub, frozen, part))
    }
  })
})
