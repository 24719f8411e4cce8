// One test per branch of Start's nine steps and the failure paragraph, on the simulator with scripted
// faults; each asserts the error and what the cluster holds afterwards.
import { Effect, Option, Schema } from "effect"
import { adoptionMark } from "../src/AdoptionMark.ts"
import { describe, expect, it } from "vitest"
import type { KubeObject } from "@dispatch/sim"
import { makeInFlight } from "../src/InFlight.ts"
import { RETRY_POLICY } from "../src/RetryPolicy.ts"
import { StartError } from "../src/StartErrors.ts"
import { backendOf, configOf, errorOf, namespace, requestOf, runStart, simOf, stored, torchRuntime, trainJobNameOf, valueOf, writes } from "./StartFixture.ts"

const plain = configOf("plain")
const open = backendOf(plain)
const name1 = trainJobNameOf(1)

const ownerUids = (object: KubeObject | undefined): ReadonlyArray<unknown> =>
  ((object?.metadata?.["ownerReferences"] as ReadonlyArray<Record<string, unknown>> | undefined) ?? []).map((o) => o["uid"])

const uidOf = (object: KubeObject | undefined): unknown => object?.metadata?.["uid"]

describe("Start, step 1: the gates", () => {
  it.each([
    ["closed", "ErrUnreachable", "reach"],
    ["read-only", "ErrReadOnly", "write"],
    ["observe-only", "ErrUnsupported", "launch"]
  ] as const)("a %s backend is refused with %s naming the %s gate, and nothing is called", async (state, tag, gate) => {
    const recorded = simOf()
    const error = errorOf(await runStart(recorded, backendOf(plain, { state, reason: "probe failed" }), requestOf(1)))
    expect(error._tag).toBe(tag)
    expect(error.reasons.join(" ")).toContain(`${gate} gate`)
    expect(recorded.calls).toEqual([])
  })
})

describe("Start, before step 2: the request's shape", () => {
  it("refuses a malformed request with ErrInvalid naming every problem, and calls nothing", async () => {
    const recorded = simOf()
    const error = errorOf(await runStart(recorded, open, { job: 7, submission: "x" }))
    expect(error._tag).toBe("ErrInvalid")
    expect(error.reasons.length).toBeGreaterThan(1)
    expect(recorded.calls).toEqual([])
  })
})

describe("Start, step 2: the runtime", () => {
  it("refuses a request without kubeflow/RuntimeRef with ErrInvalid", async () => {
    const recorded = simOf()
    const request = requestOf(1)
    const { "kubeflow/RuntimeRef": _, ...extensions } = request.spec.extensions
    const error = errorOf(await runStart(recorded, open, { ...request, spec: { ...request.spec, extensions } }))
    expect(error._tag).toBe("ErrInvalid")
    expect(recorded.calls).toEqual([])
  })

  it("refuses a runtime outside the configured list with ErrUnsupported, creating nothing", async () => {
    const recorded = simOf({ objects: [torchRuntime("other")] })
    const error = errorOf(await runStart(recorded, open, requestOf(1, { runtime: "other" })))
    expect(error._tag).toBe("ErrUnsupported")
    expect(error.reasons.join(" ")).toContain("not one of the configured runtimes")
    expect(writes(recorded.calls)).toEqual([])
  })

  it("never reads a runtime outside the configured list: ErrUnsupported even when reads fail; only its own copy is looked for", async () => {
    const recorded = simOf({ faults: [{ verb: "get", resource: "clustertrainingruntimes", action: { type: "refuse" } }] })
    const error = errorOf(await runStart(recorded, open, requestOf(1, { runtime: "not-configured" })))
    expect(error._tag).toBe("ErrUnsupported")
    expect(error.reasons).toEqual(["runtime ClusterTrainingRuntime/not-configured: not one of the configured runtimes"])
    // A job already submitted runs on its frozen copy: the only read is of that copy, by the job's name.
    expect(recorded.calls.map((c) => `${c.request.verb} ${c.request.resource}/${String(c.request.name)}`)).toEqual([`get trainingruntimes/${name1}`])
  })

  it("refuses a configured runtime that does not exist with ErrUnsupported, creating nothing", async () => {
    const recorded = simOf()
    const error = errorOf(await runStart(recorded, open, requestOf(1, { runtime: "absent-runtime" })))
    expect(error._tag).toBe("ErrUnsupported")
    expect(error.reasons.join(" ")).toContain("does not exist")
    expect(writes(recorded.calls)).toEqual([])
  })

  it("reads a TrainingRuntime from the configured namespace", async () => {
    const recorded = simOf()
    const result = valueOf(await runStart(recorded, open, requestOf(1, { kind: "TrainingRuntime", runtime: "team-torch" })))
    expect(result.ref).toBe(`${namespace}/${name1}`)
    expect(recorded.calls[0]?.request).toMatchObject({ verb: "get", resource: "trainingruntimes", namespace, name: "team-torch" })
  })

  it("turns a refused read into ErrUnreachable and a forbidden one into ErrUnsupported", async () => {
    const refused = simOf({ faults: [{ verb: "get", resource: "clustertrainingruntimes", action: { type: "refuse" } }] })
    expect(errorOf(await runStart(refused, open, requestOf(1)))._tag).toBe("ErrUnreachable")
    const forbidden = simOf({ faults: [{ verb: "get", resource: "clustertrainingruntimes", action: { type: "status", code: 403 } }] })
    expect(errorOf(await runStart(forbidden, open, requestOf(1)))._tag).toBe("ErrUnsupported")
    expect([...writes(refused.calls), ...writes(forbidden.calls)]).toEqual([])
  })
})

describe("Start, steps 3 and 4: runtime rules and render", () => {
  it("refuses a runtime that breaks the rules with ErrUnsupported naming the reason, creating nothing", async () => {
    const broken = torchRuntime("torch-distributed")
    const spec = broken["spec"] as Record<string, unknown>
    const recorded = simOf()
    recorded.sim.system.update("clustertrainingruntimes", { ...recorded.sim.system.get("clustertrainingruntimes", undefined, "torch-distributed")!, spec: { ...spec, template: { spec: { replicatedJobs: [] } } } })
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(error._tag).toBe("ErrUnsupported")
    expect(error.reasons.every((r) => r.startsWith("runtime ClusterTrainingRuntime/torch-distributed"))).toBe(true)
    expect(writes(recorded.calls)).toEqual([])
  })

  it("refuses what render refuses (an empty command) with ErrInvalid, creating nothing", async () => {
    const recorded = simOf()
    const error = errorOf(await runStart(recorded, open, requestOf(1, { command: [] })))
    expect(error._tag).toBe("ErrInvalid")
    expect(writes(recorded.calls)).toEqual([])
  })
})

describe("Start, step 5: the runtime copy", () => {
  it("a refused create is ErrUnreachable and leaves nothing", async () => {
    const recorded = simOf({ faults: [{ verb: "create", resource: "trainingruntimes", action: { type: "refuse" } }] })
    expect(errorOf(await runStart(recorded, open, requestOf(1)))._tag).toBe("ErrUnreachable")
    expect(stored(recorded, "trainingruntimes").filter((r) => r.metadata?.["name"] === name1)).toEqual([])
    expect(stored(recorded, "trainjobs")).toEqual([])
  })

  it("an unanswered create is ErrUnreachable: the copy may exist, no TrainJob is created; a retry reuses the copy", async () => {
    const recorded = simOf({ faults: [{ verb: "create", resource: "trainingruntimes", nth: 1, action: { type: "drop" } }] })
    expect(errorOf(await runStart(recorded, open, requestOf(1)))._tag).toBe("ErrUnreachable")
    const copy = recorded.sim.system.get("trainingruntimes", namespace, name1)
    expect(copy).toBeDefined()
    expect(ownerUids(copy)).toEqual([])
    expect(stored(recorded, "trainjobs")).toEqual([])
    const result = valueOf(await runStart(recorded, open, requestOf(1)))
    expect(uidOf(recorded.sim.system.get("trainingruntimes", namespace, name1))).toBe(uidOf(copy))
    expect(ownerUids(recorded.sim.system.get("trainingruntimes", namespace, name1))).toEqual([result.uid])
  })

  it("a forbidden create is ErrReadOnly and leaves nothing", async () => {
    const recorded = simOf({ faults: [{ verb: "create", resource: "trainingruntimes", action: { type: "status", code: 403 } }] })
    expect(errorOf(await runStart(recorded, open, requestOf(1)))._tag).toBe("ErrReadOnly")
    expect(stored(recorded, "trainjobs")).toEqual([])
  })

  it("an existing copy whose spec differs from the source is ErrRejected, and is left alone", async () => {
    const recorded = simOf()
    const other = torchRuntime(name1, "TrainingRuntime", "other/image:9")
    recorded.sim.system.create("trainingruntimes", other)
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(error.reasons.join(" ")).toContain("differs from its source")
    // The seed's reference names the TrainJob (and its UID once it exists), never the copy's UID.
    expect((error as { ref?: unknown }).ref).toEqual({ namespace, name: name1 })
    expect(recorded.sim.system.get("trainingruntimes", namespace, name1)).toBeDefined()
    expect(stored(recorded, "trainjobs")).toEqual([])
  })

  it("an existing copy owned by something else is ErrRejected", async () => {
    const recorded = simOf()
    const source = recorded.sim.system.get("clustertrainingruntimes", undefined, "torch-distributed")!
    recorded.sim.system.create("trainingruntimes", {
      ...torchRuntime(name1, "TrainingRuntime"),
      spec: source["spec"],
      metadata: { name: name1, namespace, ownerReferences: [{ apiVersion: "v1", kind: "Secret", name: "x", uid: "u-x" }] }
    })
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(error.reasons.join(" ")).toContain("another owner")
    expect(stored(recorded, "trainjobs")).toEqual([])
  })
})

describe("Start, step 5: a copy that vanishes", () => {
  it("creates the copy again when the one found is collected before it can be read", async () => {
    const recorded = simOf({ faults: [{ verb: "create", resource: "trainingruntimes", nth: 1, action: { type: "delay", ms: 1500 } }] })
    const source = recorded.sim.system.get("clustertrainingruntimes", undefined, "torch-distributed")!
    // A copy left by a TrainJob that an earlier attempt stopped: its owner is gone, so the collector takes it.
    recorded.sim.system.create("trainingruntimes", {
      ...torchRuntime(name1, "TrainingRuntime"),
      spec: source["spec"],
      metadata: { name: name1, namespace, ownerReferences: [{ apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", name: name1, uid: "gone-uid" }] }
    })
    const result = valueOf(await runStart(recorded, open, requestOf(1)))
    expect(recorded.calls.filter((c) => c.request.verb === "create" && c.request.resource === "trainingruntimes")).toHaveLength(2)
    expect(ownerUids(recorded.sim.system.get("trainingruntimes", namespace, name1))).toEqual([result.uid])
  })
})

describe("Start, step 6: the TrainJob", () => {
  it("an unanswered create is ErrOutcomeUnknown with the reference, remembered for Find; a retry adopts the TrainJob", async () => {
    const recorded = simOf({ faults: [{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "drop" } }] })
    const inFlight = makeInFlight()
    const error = errorOf(await runStart(recorded, open, requestOf(1), inFlight))
    expect(error._tag).toBe("ErrOutcomeUnknown")
    expect(error).toMatchObject({ ref: { namespace, name: name1 } })
    expect(Option.isSome(await Effect.runPromise(inFlight.lookup(`${namespace}/${name1}`)))).toBe(true)
    const job = recorded.sim.system.get("trainjobs", namespace, name1)
    expect(job).toBeDefined()
    expect(ownerUids(recorded.sim.system.get("trainingruntimes", namespace, name1))).toEqual([])
    const result = valueOf(await runStart(recorded, open, requestOf(1), inFlight))
    expect(result.uid).toBe(uidOf(job))
    expect(stored(recorded, "trainjobs")).toHaveLength(1)
    expect(ownerUids(recorded.sim.system.get("trainingruntimes", namespace, name1))).toEqual([result.uid])
    expect(Option.isNone(await Effect.runPromise(inFlight.lookup(`${namespace}/${name1}`)))).toBe(true)
  })

  it.each([
    ["refused", { type: "refuse" }, "ErrUnreachable"],
    ["invalid (422)", { type: "status", code: 422 }, "ErrRejected"],
    ["forbidden (403)", { type: "status", code: 403 }, "ErrReadOnly"],
    ["a server error (500)", { type: "status", code: 500 }, "ErrUnreachable"]
  ] as const)("a %s create deletes the copy and returns %s", async (_, action, tag) => {
    const recorded = simOf({ faults: [{ verb: "create", resource: "trainjobs", action }] })
    expect(errorOf(await runStart(recorded, open, requestOf(1)))._tag).toBe(tag)
    expect(recorded.sim.system.get("trainingruntimes", namespace, name1)).toBeUndefined()
    expect(stored(recorded, "trainjobs")).toEqual([])
  })

  it("an admission webhook's denial (403) is ErrRejected with the webhook's reasons, not ErrReadOnly; the copy goes", async () => {
    const recorded = simOf()
    recorded.sim.addAdmission({ name: "validator.trainjob.trainer.kubeflow.org", resource: "trainjobs", admit: () => ({ denied: ["spec.trainer.env[0]: PET_NNODES is reserved"] }) })
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(error.reasons.join(" ")).toContain('admission webhook "validator.trainjob.trainer.kubeflow.org" denied the request: spec.trainer.env[0]: PET_NNODES is reserved')
    expect(recorded.sim.system.get("trainingruntimes", namespace, name1)).toBeUndefined()
    expect(stored(recorded, "trainjobs")).toEqual([])
    const message = 'admission webhook "validator.trainjob.trainer.kubeflow.org" denied the request: refused'
    const injected = simOf({ faults: [{ verb: "create", resource: "trainjobs", action: { type: "status", code: 403, message } }] })
    expect(errorOf(await runStart(injected, open, requestOf(1)))._tag).toBe("ErrRejected")
  })

  it("when the copy cannot be deleted after a definite failure, says so with ErrUnreachable (a retry reuses it)", async () => {
    const recorded = simOf({
      faults: [
        { verb: "create", resource: "trainjobs", nth: 1, action: { type: "status", code: 500 } },
        { verb: "delete", resource: "trainingruntimes", nth: 1, times: RETRY_POLICY.tries, action: { type: "refuse" } }
      ]
    })
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(error._tag).toBe("ErrUnreachable")
    expect(error.reasons.join(" ")).toContain("could not be deleted")
    expect(recorded.sim.system.get("trainingruntimes", namespace, name1)).toBeDefined()
    valueOf(await runStart(recorded, open, requestOf(1)))
  })

  it("a TrainJob of that name with a different spec is ErrRejected; the copy goes, the TrainJob stays", async () => {
    const recorded = simOf()
    valueOf(await runStart(recorded, open, requestOf(1)))
    const before = recorded.sim.system.get("trainjobs", namespace, name1)
    recorded.sim.system.delete("trainingruntimes", namespace, name1, "Background")
    const error = errorOf(await runStart(recorded, open, requestOf(1, { image: "registry.example/train:2" })))
    expect(error._tag).toBe("ErrRejected")
    expect(error).toMatchObject({ ref: { namespace, name: name1, uid: uidOf(before) } })
    expect(uidOf(recorded.sim.system.get("trainjobs", namespace, name1))).toBe(uidOf(before))
    expect(recorded.sim.system.get("trainingruntimes", namespace, name1)).toBeUndefined()
  })
})

describe("Start, steps 7 and 8, and the failure paragraph", () => {
  it("an owner that cannot be set stops the TrainJob and the copy: ErrRejected with the reference", async () => {
    const recorded = simOf({ faults: [{ verb: "patch", resource: "trainingruntimes", action: { type: "status", code: 500 } }] })
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(error).toMatchObject({ ref: { namespace, name: name1 } })
    expect((error as { ref?: { uid?: string } }).ref?.uid).toBeTypeOf("string")
    expect(stored(recorded, "trainjobs")).toEqual([])
    expect(recorded.sim.system.get("trainingruntimes", namespace, name1)).toBeUndefined()
  })

  it("when the stop fails too, it is ErrOutcomeUnknown with the reference", async () => {
    const recorded = simOf({
      faults: [
        { verb: "patch", resource: "trainingruntimes", action: { type: "status", code: 500 } },
        { verb: "delete", resource: "trainjobs", action: { type: "refuse" } }
      ]
    })
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(error._tag).toBe("ErrOutcomeUnknown")
    expect(error).toMatchObject({ ref: { namespace, name: name1 } })
    expect(stored(recorded, "trainjobs")).toHaveLength(1)
  })

  it("when the copy cannot be deleted first, the TrainJob is not stopped: ErrOutcomeUnknown naming the copy", async () => {
    const recorded = simOf({
      faults: [
        { verb: "patch", resource: "trainingruntimes", action: { type: "status", code: 500 } },
        { verb: "delete", resource: "trainingruntimes", action: { type: "refuse" } }
      ]
    })
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(error._tag).toBe("ErrOutcomeUnknown")
    expect(error).toMatchObject({ ref: { namespace, name: name1, uid: uidOf(stored(recorded, "trainjobs")[0]) } })
    expect(error.reasons.join(" ")).toContain("the runtime copy could not be deleted")
    // Without the copy's delete this Start cannot tell whether a concurrent Start adopted the TrainJob.
    expect(stored(recorded, "trainjobs")).toHaveLength(1)
    expect(recorded.calls.filter((c) => c.request.verb === "delete" && c.request.resource === "trainjobs")).toEqual([])
  })

  it("a read-back that fails stops the TrainJob: ErrRejected", async () => {
    const recorded = simOf({ faults: [{ verb: "get", resource: "trainjobs", action: { type: "status", code: 503 } }] })
    expect(errorOf(await runStart(recorded, open, requestOf(1)))._tag).toBe("ErrRejected")
    expect(stored(recorded, "trainjobs")).toEqual([])
    expect(recorded.sim.system.get("trainingruntimes", namespace, name1)).toBeUndefined()
  })

  it("a TrainJob changed by the cluster stops it: ErrRejected naming what changed", async () => {
    const recorded = simOf()
    recorded.sim.addAdmission({
      name: "rewrites-image",
      resource: "trainjobs",
      admit: (operation, object) => {
        if (operation !== "create") return { object }
        const spec = object["spec"] as Record<string, unknown>
        return { object: { ...object, spec: { ...spec, trainer: { ...(spec["trainer"] as object), image: "mutated:1" } } } }
      }
    })
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(error.reasons.join(" ")).toContain("spec.trainer")
    expect(stored(recorded, "trainjobs")).toEqual([])
  })
})

describe("Start, success and retries", () => {
  it("creates the copy and a suspended TrainJob that owns it, in the seed's minimum of calls", async () => {
    const recorded = simOf()
    const result = valueOf(await runStart(recorded, open, requestOf(1)))
    const job = recorded.sim.system.get("trainjobs", namespace, name1)
    expect(result).toEqual({ ref: `${namespace}/${name1}`, namespace, name: name1, uid: uidOf(job), created: true, gateClosed: true })
    expect((job?.["spec"] as Record<string, unknown>)["suspend"]).toBe(true)
    expect(ownerUids(recorded.sim.system.get("trainingruntimes", namespace, name1))).toEqual([result.uid])
    expect(recorded.calls.map((c) => `${c.request.verb} ${c.request.resource}`)).toEqual([
      "get clustertrainingruntimes",
      "create trainingruntimes",
      "create trainjobs",
      "patch trainingruntimes",
      "get trainjobs"
    ])
  })

  it("a retry after success returns the same reference and creates nothing; it only marks the copy as adopted, once", async () => {
    const recorded = simOf()
    const first = valueOf(await runStart(recorded, open, requestOf(1)))
    const applied = (from: number) =>
      writes(recorded.calls.slice(from)).filter((c) => c.outcome.kind === "answered" && c.outcome.response.code < 300).map((c) => `${c.request.verb} ${c.request.resource}`)
    const before = recorded.calls.length
    const second = valueOf(await runStart(recorded, open, requestOf(1)))
    expect(second).toEqual({ ...first, created: false })
    expect(applied(before)).toEqual(["patch trainingruntimes"])
    const annotations = recorded.sim.system.get("trainingruntimes", namespace, name1)?.metadata?.["annotations"] as Record<string, string>
    expect(annotations[adoptionMark(configOf("plain"))]).toBe(first.uid)
    const again = recorded.calls.length
    expect(valueOf(await runStart(recorded, open, requestOf(1)))).toEqual(second)
    expect(applied(again)).toEqual([])
    expect(stored(recorded, "trainjobs")).toHaveLength(1)
  })
})

describe("StartError", () => {
  it("every error survives its schema, as supervisors record it", async () => {
    const recorded = simOf({ faults: [{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "drop" } }] })
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    const encoded = JSON.parse(JSON.stringify(Schema.encodeSync(StartError)(error))) as unknown
    const decoded = Schema.decodeUnknownSync(StartError)(encoded)
    expect(decoded._tag).toBe(error._tag)
    expect(decoded.reasons).toEqual(error.reasons)
  })
})
