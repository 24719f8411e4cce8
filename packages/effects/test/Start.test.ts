// One test per branch of Start's nine steps and the failure paragraph, on the simulator with scripted
// faults; each asserts the error and what the cluster holds afterwards.
import { Effect, Option, Schema, Layer, Logger, References, Tracer } from "effect"
import { adoptionMark } from "../src/AdoptionMark.ts"
import { describe, expect, it } from "vitest"
import type { KubeObject, FaultRule } from "@dispatch/sim"
import { makeInFlight, InFlight } from "../src/InFlight.ts"
import { RETRY_POLICY } from "../src/RetryPolicy.ts"
import { StartError, isPassing, retryAfterOf } from "../src/StartErrors.ts"
import { backendOf, configOf, errorOf, namespace, requestOf, runStart, simOf, stored, torchRuntime, trainJobNameOf, valueOf, writes, afterCall, type RecordedSim, runOnTestClock, scriptedKueue, suspendOnCreate, intercepted, openInStore } from "./StartFixture.ts"
import { SimCluster } from "@dispatch/sim/cluster"
import { start } from "../src/Start.ts"
import { admissionGateName } from "@dispatch/render"
import { admissionGatedBy } from "@dispatch/kube"
import { Cluster } from "../src/Cluster.ts"

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

// Start's rules at the edges the step tests above do not draw (docs/testing.md lists the mutants they kill):
// which existing copy is "ours", a copy or TrainJob caught being deleted, a copy that keeps vanishing,
// what step 7 leaves on the copy and when it patches again, the reasons each failure names, the Workload
// wait's selector, and the spans and log lines a Start leaves. Every test reads the simulator's store.
describe("Start's rules at the edges", () => {
  const plain = configOf("plain")
  const open = backendOf(plain)
  const name1 = trainJobNameOf(1)
  const finalizer = "example.com/keep"

  const uidOf = (object: KubeObject | undefined): unknown => object?.metadata?.["uid"]
  const ownerUids = (object: KubeObject | undefined): ReadonlyArray<unknown> =>
    ((object?.metadata?.["ownerReferences"] as ReadonlyArray<Record<string, unknown>> | undefined) ?? []).map((o) => o["uid"])
  const copyOf = (recorded: RecordedSim): KubeObject | undefined => recorded.sim.system.get("trainingruntimes", namespace, name1)
  const jobOf = (recorded: RecordedSim): KubeObject | undefined => recorded.sim.system.get("trainjobs", namespace, name1)
  const callsOf = (recorded: RecordedSim, verb: string, resource: string) => recorded.calls.filter((c) => c.request.verb === verb && c.request.resource === resource)

  /** A copy of job 1's name with the source runtime's spec and the given owners, as an earlier Start or someone else left it. */
  const leaveCopy = (recorded: RecordedSim, ownerReferences: ReadonlyArray<Record<string, unknown>>): void => {
    const source = recorded.sim.system.get("clustertrainingruntimes", undefined, "torch-distributed")!
    recorded.sim.system.create("trainingruntimes", { ...torchRuntime(name1, "TrainingRuntime"), spec: source["spec"], metadata: { name: name1, namespace, ownerReferences } })
  }

  const trainJobOwner = (name: string, uid: string) => ({ apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", name, uid })

  /** Job 1's first create lands unanswered; then a new attempt of the job (its comment and attempt token
   * differ, so the TrainJob is not its) is started with `faults`. */
  const newAttemptOverLanded = async (faults: ReadonlyArray<FaultRule>) => {
    const recorded = simOf({ faults: [{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "drop" } }] })
    const inFlight = makeInFlight()
    expect(errorOf(await runStart(recorded, open, requestOf(1), inFlight))._tag).toBe("ErrOutcomeUnknown")
    const landed = jobOf(recorded)
    recorded.sim.setFaults(faults)
    const error = errorOf(await runStart(recorded, open, { ...requestOf(1), attempt: 2 }, inFlight))
    return { recorded, landed, error }
  }

  /** Answers the first call of `verb` on `resource` with a 422 Status carrying two field causes, applying nothing. */
  const invalidWithCauses = (recorded: RecordedSim, verb: string, resource: string): RecordedSim => {
    let done = false
    return {
      ...recorded,
      face: {
        ...recorded.face,
        handle: (request) => {
          if (done || request.verb !== verb || request.resource !== resource) return recorded.face.handle(request)
          done = true
          const causes = [
            { reason: "FieldValueInvalid", field: "metadata.finalizers", message: "held" },
            { reason: "FieldValueInvalid", field: "metadata.uid", message: "mismatch" }
          ]
          return { kind: "answered", response: { code: 422, body: { kind: "Status", apiVersion: "v1", status: "Failure", reason: "Invalid", code: 422, message: "refused", details: { causes } } } }
        }
      }
    }
  }

  /** Holds job 1's object of `resource` with a finalizer and deletes it, so it stays with a deletionTimestamp. */
  const holdAndDelete = (recorded: RecordedSim, resource: "trainjobs" | "trainingruntimes"): void => {
    const object = recorded.sim.system.get(resource, namespace, name1)!
    recorded.sim.system.update(resource, { ...object, metadata: { ...object.metadata, finalizers: [finalizer] } })
    recorded.sim.system.delete(resource, namespace, name1, "Background")
  }

  describe("Start, step 5: which existing copy is this job's", () => {
    it.each([
      ["a Secret of the job's name", [{ apiVersion: "v1", kind: "Secret", name: trainJobNameOf(1), uid: "u-cm" }]],
      ["a TrainJob of another name", [trainJobOwner(trainJobNameOf(2), "u-other")]],
      ["a TrainJob of the job's name and something else", [trainJobOwner(trainJobNameOf(1), "u-gone"), { apiVersion: "v1", kind: "Secret", name: "x", uid: "u-cm" }]]
    ])("a copy owned by %s is another owner's: ErrRejected, nothing created", async (_, owners) => {
      const recorded = simOf()
      leaveCopy(recorded, owners)
      const error = errorOf(await runStart(recorded, open, requestOf(1)))
      expect(error._tag).toBe("ErrRejected")
      expect(error.reasons).toEqual([`the runtime copy ${namespace}/${name1} exists and belongs to another owner`])
      expect(error).toMatchObject({ ref: { namespace, name: name1 } })
      expect(ownerUids(copyOf(recorded))).toEqual(owners.map((o) => o.uid))
      expect(stored(recorded, "trainjobs")).toEqual([])
    })

    it("a copy with the source's spec owned by a gone TrainJob of its name is this job's: the new TrainJob takes it over", async () => {
      const recorded = simOf()
      leaveCopy(recorded, [trainJobOwner(name1, "u-gone")])
      const result = valueOf(await runStart(recorded, open, requestOf(1)))
      expect(ownerUids(copyOf(recorded))).toEqual([result.uid])
    })

    it("a copy being deleted while its TrainJob is still there is ErrOutcomeUnknown naming that TrainJob: an earlier stop did not finish", async () => {
      const recorded = simOf()
      const first = valueOf(await runStart(recorded, open, requestOf(1)))
      holdAndDelete(recorded, "trainingruntimes")
      const error = errorOf(await runStart(recorded, open, requestOf(1)))
      expect(error._tag).toBe("ErrOutcomeUnknown")
      expect(error.reasons).toEqual([
        `the TrainJob ${namespace}/${name1} exists on a runtime copy that is being deleted: an earlier stop did not finish; Stop it, then retry`
      ])
      expect(error).toMatchObject({ ref: { namespace, name: name1, uid: first.uid } })
      expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([first.uid])
    })

    it("a copy that vanishes twice between create and read is ErrUnreachable after two creates, and no TrainJob is created", async () => {
      // The copy is there for each create (AlreadyExists) and gone for each read (404).
      const recorded = simOf({ faults: [{ verb: "get", resource: "trainingruntimes", name: trainJobNameOf(1), action: { type: "status", code: 404 } }] })
      leaveCopy(recorded, [])
      const error = errorOf(await runStart(recorded, open, requestOf(1)))
      expect(error._tag).toBe("ErrUnreachable")
      expect(error.reasons).toEqual([`the runtime copy ${namespace}/${name1} kept vanishing between create and read`])
      expect(callsOf(recorded, "create", "trainingruntimes")).toHaveLength(2)
      expect(callsOf(recorded, "create", "trainjobs")).toEqual([])
    })
  })

  describe("Start, steps 2 to 5 on a job's frozen runtime", () => {
    it("only a refusal falls back to the job's frozen copy: a source runtime that cannot be read is ErrUnreachable (retry later), even with the job there", async () => {
      const recorded = simOf()
      const first = valueOf(await runStart(recorded, open, requestOf(1)))
      recorded.sim.setFaults([{ verb: "get", resource: "clustertrainingruntimes", action: { type: "status", code: 503 } }])
      const error = errorOf(await runStart(recorded, open, requestOf(1)))
      expect(error._tag).toBe("ErrUnreachable")
      expect(callsOf(recorded, "get", "trainjobs")).toHaveLength(1)
      expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([first.uid])
    })
  })

  describe("Start, step 6: a TrainJob of the name already there", () => {
    it("one that cannot be read is ErrOutcomeUnknown with the read's reasons: whether it is this request's is unknown", async () => {
      const recorded = simOf()
      const first = valueOf(await runStart(recorded, open, requestOf(1)))
      recorded.sim.setFaults([{ verb: "get", resource: "trainjobs", action: { type: "status", code: 500, message: "etcd is down" } }])
      const error = errorOf(await runStart(recorded, open, requestOf(1)))
      expect(error._tag).toBe("ErrOutcomeUnknown")
      expect(error.reasons.join(" ")).toContain("etcd is down")
      expect(error).toEqual(expect.objectContaining({ ref: { namespace, name: name1 } }))
      expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([first.uid])
      expect(ownerUids(copyOf(recorded))).toEqual([first.uid])
    })

    it("one of this request that is being deleted is not adopted: ErrRejected with its reference, and its copy stays its own", async () => {
      const recorded = simOf()
      const first = valueOf(await runStart(recorded, open, requestOf(1)))
      holdAndDelete(recorded, "trainjobs")
      const error = errorOf(await runStart(recorded, open, requestOf(1)))
      expect(error._tag).toBe("ErrRejected")
      expect(error.reasons).toEqual([`the TrainJob ${namespace}/${name1} is being deleted`])
      expect(error).toMatchObject({ ref: { namespace, name: name1, uid: first.uid } })
      expect(ownerUids(copyOf(recorded))).toEqual([first.uid])
      expect(callsOf(recorded, "delete", "trainjobs")).toEqual([])
    })

    it("one that is not this request's gets the copy it runs on as its owner, but not the mark of an adoption", async () => {
      const { recorded, landed, error } = await newAttemptOverLanded([])
      expect(error._tag).toBe("ErrRejected")
      const copy = copyOf(recorded)
      expect(ownerUids(copy)).toEqual([uidOf(landed)])
      expect((copy?.metadata?.["annotations"] as Record<string, string> | undefined)?.[adoptionMark(plain)]).toBeUndefined()
    })

    it("one that is not this request's keeps the copy; when handing it over fails, ErrRejected names both", async () => {
      const { recorded, landed, error } = await newAttemptOverLanded([{ verb: "patch", resource: "trainingruntimes", action: { type: "status", code: 500, message: "patch broke" } }])
      expect(error._tag).toBe("ErrRejected")
      expect(error).toMatchObject({ ref: { namespace, name: name1, uid: uidOf(landed) } })
      const at = error.reasons.indexOf("the runtime copy's owner could not be set")
      expect(at).toBeGreaterThan(0)
      expect(error.reasons.slice(at + 1).join(" ")).toContain("patch broke")
      expect(copyOf(recorded)).toBeDefined()
      expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([uidOf(landed)])
    })
  })

  describe("Start, step 7: the copy's owner", () => {
    it("a Start that created the TrainJob does not mark the copy as adopted", async () => {
      const recorded = simOf()
      const result = valueOf(await runStart(recorded, open, requestOf(1)))
      const copy = copyOf(recorded)
      expect(ownerUids(copy)).toEqual([result.uid])
      expect((copy?.metadata?.["annotations"] as Record<string, string> | undefined)?.[adoptionMark(plain)]).toBeUndefined()
    })

    it("sets the owner with the copy's resourceVersion as precondition, a controller reference to the TrainJob", async () => {
      const recorded = simOf()
      const result = valueOf(await runStart(recorded, open, requestOf(1)))
      const [patch] = callsOf(recorded, "patch", "trainingruntimes")
      const body = patch?.request.body as { metadata: { resourceVersion?: string; ownerReferences: ReadonlyArray<unknown> } }
      expect(body.metadata.resourceVersion).toBeTypeOf("string")
      expect(copyOf(recorded)?.metadata?.["ownerReferences"]).toEqual([
        { apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", name: name1, uid: result.uid, controller: true }
      ])
    })

    it("an owner patch that went unanswered but landed is read, not repeated", async () => {
      const recorded = simOf({ faults: [{ verb: "patch", resource: "trainingruntimes", nth: 1, action: { type: "drop" } }] })
      const result = valueOf(await runStart(recorded, open, requestOf(1)))
      expect(callsOf(recorded, "patch", "trainingruntimes")).toHaveLength(1)
      expect(ownerUids(copyOf(recorded))).toEqual([result.uid])
    })

    it("an owner patch refused by the server names it and is not retried: ErrRejected, the TrainJob and copy stopped", async () => {
      // Only the first patch fails: a refusal ends step 7 (only a passing fault tries again).
      const recorded = simOf({ faults: [{ verb: "patch", resource: "trainingruntimes", nth: 1, action: { type: "status", code: 422, message: "patch broke" } }] })
      const error = errorOf(await runStart(recorded, open, requestOf(1)))
      expect(error._tag).toBe("ErrRejected")
      expect(error.reasons[0]).toBe("the runtime copy's owner could not be set")
      expect(error.reasons.join(" ")).toContain("patch broke")
      expect(callsOf(recorded, "patch", "trainingruntimes")).toHaveLength(1)
      expect(stored(recorded, "trainjobs")).toEqual([])
      expect(copyOf(recorded)).toBeUndefined()
    })

    it("an owner patch that went unanswered, then a copy that cannot be read, names the read's failure; the TrainJob is stopped", async () => {
      const recorded = simOf({
        faults: [
          { verb: "patch", resource: "trainingruntimes", nth: 1, action: { type: "drop" } },
          // Every read of the retries that follow the lost patch fails; the clean-up's read does not.
          { verb: "get", resource: "trainingruntimes", name: trainJobNameOf(1), nth: 1, times: RETRY_POLICY.tries - 1, action: { type: "status", code: 500, message: "copy unreadable" } }
        ]
      })
      const error = errorOf(await runStart(recorded, open, requestOf(1)))
      expect(error._tag).toBe("ErrRejected")
      expect(error.reasons[0]).toBe("the runtime copy's owner could not be set")
      expect(error.reasons.slice(1).join(" ")).toContain("copy unreadable")
      expect(stored(recorded, "trainjobs")).toEqual([])
      expect(copyOf(recorded)).toBeUndefined()
    })

    it.each([
      [
        "replaced by another copy with the same spec",
        (recorded: RecordedSim) => {
          const copy = copyOf(recorded)!
          recorded.sim.system.delete("trainingruntimes", namespace, name1, "Background")
          const { uid: _uid, resourceVersion: _rv, creationTimestamp: _ct, ...metadata } = copy.metadata as Record<string, unknown>
          recorded.sim.system.create("trainingruntimes", { ...copy, metadata })
        }
      ],
      ["being deleted", (recorded: RecordedSim) => holdAndDelete(recorded, "trainingruntimes")],
      [
        "given another owner",
        (recorded: RecordedSim) => {
          const copy = copyOf(recorded)!
          // An owner that exists: the garbage collector deletes a dependent whose owners are all gone.
          recorded.sim.system.create("secrets", { apiVersion: "v1", kind: "Secret", metadata: { name: "x", namespace } })
          const secret = recorded.sim.system.get("secrets", namespace, "x")!
          recorded.sim.system.update("trainingruntimes", { ...copy, metadata: { ...copy.metadata, ownerReferences: [{ apiVersion: "v1", kind: "Secret", name: "x", uid: String(secret.metadata?.uid) }] } })
        }
      ]
    ] as const)("a copy %s after the TrainJob's create is not taken over: Start fails naming the change", async (_, change) => {
      const base = simOf()
      const recorded = afterCall(base, "create", "trainjobs", () => change(base))
      const error = errorOf(await runStart(recorded, open, requestOf(1)))
      expect(["ErrRejected", "ErrOutcomeUnknown"]).toContain(error._tag)
      expect(error.reasons.slice(0, 2)).toEqual(["the runtime copy's owner could not be set", `the runtime copy ${namespace}/${name1} changed since it was created`])
      const job = jobOf(base)
      const copy = copyOf(base)
      expect(ownerUids(copy)).not.toContain(uidOf(job) ?? "none")
      expect(callsOf(base, "patch", "trainingruntimes")).toHaveLength(1)
    })
  })

  describe("Start, steps 8 and 9, and the failure paragraph: what each failure says", () => {
    it("a read-back that fails names it", async () => {
      const recorded = simOf({ faults: [{ verb: "get", resource: "trainjobs", action: { type: "status", code: 503, message: "try later" } }] })
      const error = errorOf(await runStart(recorded, open, requestOf(1)))
      expect(error._tag).toBe("ErrRejected")
      expect(error.reasons[0]).toBe("the TrainJob could not be read back")
      expect(error.reasons.join(" ")).toContain("try later")
    })

    it("a stop that fails names it after the failure: ErrOutcomeUnknown", async () => {
      const recorded = simOf({
        faults: [
          { verb: "patch", resource: "trainingruntimes", action: { type: "status", code: 500 } },
          { verb: "delete", resource: "trainjobs", action: { type: "status", code: 500, message: "delete broke" } }
        ]
      })
      const error = errorOf(await runStart(recorded, open, requestOf(1)))
      expect(error._tag).toBe("ErrOutcomeUnknown")
      expect(error.reasons[0]).toBe("the runtime copy's owner could not be set")
      expect(error.reasons.at(-1)).toMatch(/^stopping the TrainJob failed: .*delete broke/)
      // The copy went first, then the TrainJob's delete (with its UID as precondition) failed.
      expect(copyOf(recorded)).toBeUndefined()
      expect(stored(recorded, "trainjobs")).toHaveLength(1)
      const [deleted] = callsOf(recorded, "delete", "trainjobs")
      expect(JSON.stringify(deleted?.request.body)).toContain(String(uidOf(jobOf(recorded))))
    })

    it("a copy that cannot be deleted after a definite failure names every cause of its delete's refusal", async () => {
      const base = simOf({ faults: [{ verb: "create", resource: "trainjobs", action: { type: "status", code: 500 } }] })
      const error = errorOf(await runStart(invalidWithCauses(base, "delete", "trainingruntimes"), open, requestOf(1)))
      expect(error._tag).toBe("ErrUnreachable")
      const call = `delete trainingruntimes ${namespace}/${name1}`
      expect(error.reasons.at(-1)).toBe(
        `the runtime copy could not be deleted: ${call}: Invalid (422): refused; ${call}: metadata.finalizers: held; ${call}: metadata.uid: mismatch`
      )
      expect(copyOf(base)).toBeDefined()
    })

    it("a stop refused with several causes names each of them", async () => {
      const base = simOf({ faults: [{ verb: "patch", resource: "trainingruntimes", action: { type: "status", code: 500 } }] })
      const error = errorOf(await runStart(invalidWithCauses(base, "delete", "trainjobs"), open, requestOf(1)))
      expect(error._tag).toBe("ErrOutcomeUnknown")
      const call = `delete trainjobs ${namespace}/${name1}`
      expect(error.reasons.at(-1)).toBe(
        `stopping the TrainJob failed: ${call}: Invalid (422): refused; ${call}: metadata.finalizers: held; ${call}: metadata.uid: mismatch`
      )
      expect(stored(base, "trainjobs")).toHaveLength(1)
    })

    it("a creator that must stop its TrainJob leaves it when a concurrent Start adopted it first (marked the copy): ErrOutcomeUnknown", async () => {
      const base = simOf({ faults: [{ verb: "get", resource: "trainjobs", nth: 1, times: RETRY_POLICY.tries, action: { type: "status", code: 500, message: "read-back broke" } }] })
      // Between the creator's owner patch and its read-back, another Start of the request adopts the TrainJob.
      const recorded = afterCall(base, "patch", "trainingruntimes", () => {
        const copy = copyOf(base)!
        const uid = String(uidOf(jobOf(base)))
        base.sim.system.update("trainingruntimes", { ...copy, metadata: { ...copy.metadata, annotations: { ...(copy.metadata?.["annotations"] as object), [adoptionMark(plain)]: uid } } })
      }, true)
      const error = errorOf(await runStart(recorded, open, requestOf(1)))
      expect(error._tag).toBe("ErrOutcomeUnknown")
      expect(error.reasons[0]).toBe("the TrainJob could not be read back")
      expect(error.reasons.at(-1)).toBe("a concurrent Start of this request adopted the TrainJob, so it was left as it is")
      expect(error).toMatchObject({ ref: { namespace, name: name1, uid: uidOf(jobOf(base)) } })
      expect(stored(base, "trainjobs")).toHaveLength(1)
      expect(ownerUids(copyOf(base))).toEqual([uidOf(jobOf(base))])
      expect(callsOf(base, "delete", "trainjobs")).toEqual([])
    })

    it("a TrainJob stopped after a failure is deleted only if it is still the one this Start created", async () => {
      const recorded = simOf({ faults: [{ verb: "get", resource: "trainjobs", action: { type: "status", code: 503 } }] })
      errorOf(await runStart(recorded, open, requestOf(1)))
      const [deleted] = callsOf(recorded, "delete", "trainjobs")
      const created = callsOf(recorded, "create", "trainjobs")[0]?.outcome
      const uid = created?.kind === "answered" ? (created.response.body as KubeObject).metadata?.["uid"] : undefined
      expect(uid).toBeTypeOf("string")
      expect(deleted?.request.body).toMatchObject({ preconditions: { uid } })
    })

    it("a failure after adopting leaves the TrainJob and says so", async () => {
      const config = configOf("kueue")
      const recorded = simOf({
        controllers: { kueue: { queues: { "team-queue": { admissionChecks: ["dispatch-check"] } }, workloadDelayMs: 40_000 } },
        faults: [{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "drop" } }]
      })
      const inFlight = makeInFlight()
      errorOf(await runStart(recorded, backendOf(config), requestOf(1), inFlight))
      const error = errorOf(await runStart(recorded, backendOf(config), requestOf(1), inFlight))
      expect(error._tag).toBe("ErrRejected")
      expect(error.reasons.at(-1)).toBe("the TrainJob existed before this Start, so it was left as it is")
      expect(error.reasons[0]).toBe("no ready Workload within 30000 ms")
    })

    it("waits for this TrainJob's Workload, not another job's that is ready", async () => {
      const config = configOf("kueue")
      const recorded = simOf()
      suspendOnCreate(recorded)
      recorded.sim.addController(scriptedKueue({ gate: true, check: true, serves: (name) => name === name1 }))
      valueOf(await runStart(recorded, backendOf(config), requestOf(1)))
      const error = errorOf(await runStart(recorded, backendOf(config), requestOf(2)))
      expect(error._tag).toBe("ErrRejected")
      expect(error.reasons).toEqual(["no ready Workload within 30000 ms", "no Workload exists for the TrainJob yet"])
      expect(stored(recorded, "trainjobs").map((j) => j.metadata?.["name"])).toEqual([name1])
    })

    it("in plain mode a config's kueue section changes nothing: no Workload is waited for", async () => {
      const config = configOf("plain", { kueue: { queue: "team-queue", admissionCheck: "dispatch-check" } })
      const recorded = simOf()
      expect(valueOf(await runStart(recorded, backendOf(config), requestOf(1)))).toMatchObject({ created: true, gateClosed: true })
      expect(callsOf(recorded, "list", "workloads")).toEqual([])
    })

    it("a Workload list that keeps failing names the list's failure", async () => {
      const config = configOf("kueue")
      const recorded = simOf({ faults: [{ verb: "list", resource: "workloads", action: { type: "status", code: 500, message: "list broke" } }] })
      suspendOnCreate(recorded)
      recorded.sim.addController(scriptedKueue({ gate: true, check: true }))
      const error = errorOf(await runStart(recorded, backendOf(config), requestOf(1)))
      expect(error._tag).toBe("ErrRejected")
      expect(error.reasons[0]).toBe("no ready Workload within 30000 ms")
      expect(error.reasons.slice(1).join(" ")).toContain("list broke")
      expect(stored(recorded, "trainjobs")).toEqual([])
    })
  })

  /** Runs Start on TestClock, recording its spans and its log lines (message, level, annotations). */
  const startRecorded = async (recorded: RecordedSim, request: unknown) => {
    const spans: Array<Tracer.NativeSpan> = []
    const logs: Array<{ readonly message: string; readonly level: string; readonly annotations: Readonly<Record<string, unknown>> }> = []
    const tracer = Tracer.make({
      span: (options) => {
        const span = new Tracer.NativeSpan(options)
        spans.push(span)
        return span
      }
    })
    const logger = Logger.make((options) =>
      void logs.push({
        message: String(Array.isArray(options.message) ? options.message.join(" ") : options.message),
        level: options.logLevel,
        annotations: options.fiber.getRef(References.CurrentLogAnnotations)
      })
    )
    const exit = await runOnTestClock(
      start(open, request).pipe(
        Effect.withTracer(tracer),
        Effect.provideService(References.MinimumLogLevel, "All"),
        Effect.provide(Layer.mergeAll(SimCluster(recorded.face, { callMs: plain.timeouts.callMs }), Layer.succeed(InFlight, makeInFlight()), Logger.layer([logger])))
      )
    )
    return { spans, logs, exit }
  }

  describe("Start's spans and log lines", () => {
    it("span every step under dispatch.start with the job, submission and name; log each step and the outcome", async () => {
      const { spans, logs, exit } = await startRecorded(simOf(), requestOf(1, { submission: 3 }))
      const result = valueOf(exit)
      expect(spans.map((s) => s.name)).toContain("dispatch.start")
      const readRuntime = spans.find((s) => s.name === "dispatch.start.readRuntime")
      expect(Object.fromEntries(readRuntime?.attributes ?? [])).toMatchObject({ "dispatch.job": requestOf(1).job, "dispatch.submission": 3, "dispatch.name": trainJobNameOf(1, 3) })
      expect(logs.filter((l) => l.message === "start: readBack done")).toHaveLength(1)
      const done = logs.find((l) => l.message === "start: TrainJob created with its start gate closed")
      expect(done?.annotations).toMatchObject({ uid: result.uid, gateClosed: true, job: requestOf(1).job })
    })

    it("a Start whose read-back fails spans the stop that follows, after the failed step", async () => {
      const { spans, exit } = await startRecorded(simOf({ faults: [{ verb: "get", resource: "trainjobs", action: { type: "status", code: 503, message: "try later" } }] }), requestOf(1))
      expect(errorOf(exit)._tag).toBe("ErrRejected")
      const names = spans.map((s) => s.name).filter((n) => n === "dispatch.start.readBack" || n === "dispatch.start.stopAfterFailure")
      expect(names).toEqual(["dispatch.start.readBack", "dispatch.start.stopAfterFailure"])
    })

    it("a retry on the job's frozen runtime spans the look for it and the render on it", async () => {
      const recorded = simOf()
      valueOf(await runStart(recorded, open, requestOf(1)))
      recorded.sim.system.delete("clustertrainingruntimes", undefined, "torch-distributed", "Background")
      const { spans, exit } = await startRecorded(recorded, requestOf(1))
      expect(valueOf(exit).created).toBe(false)
      // The source is gone: step 3 refuses it before any render, and the job's frozen copy is rendered instead.
      expect(spans.map((s) => s.name).filter((n) => n === "dispatch.start.frozenRuntime" || n === "dispatch.start.render")).toEqual([
        "dispatch.start.frozenRuntime",
        "dispatch.start.render"
      ])
    })

    it("an adopting Start says so in its last log line", async () => {
      const recorded = simOf()
      valueOf(await runStart(recorded, open, requestOf(1)))
      const { logs } = await startRecorded(recorded, requestOf(1))
      expect(logs.map((l) => l.message)).toContain("start: the TrainJob an earlier Start created is this request's")
    })

    it("a failed step logs its error: the tag, or the first reason of steps 7 to 9", async () => {
      const gated = await startRecorded(simOf({ faults: [{ verb: "get", resource: "clustertrainingruntimes", action: { type: "refuse" } }] }), requestOf(1))
      expect(gated.logs.find((l) => l.message === "start: readRuntime failed")?.annotations["error"]).toBe("ErrUnreachable")
      const owner = await startRecorded(simOf({ faults: [{ verb: "patch", resource: "trainingruntimes", action: { type: "status", code: 500 } }] }), requestOf(1))
      expect(owner.logs.find((l) => l.message === "start: setCopyOwner failed")?.annotations["error"]).toBe("the runtime copy's owner could not be set")
    })

    it("a request whose job is not a JobID carries the job, but no TrainJob name, on its spans", async () => {
      const { spans, exit } = await startRecorded(simOf(), { ...requestOf(1), job: "not-a-job-id" })
      expect(errorOf(exit)._tag).toBe("ErrInvalid")
      const decode = spans.find((s) => s.name === "dispatch.start.decodeRequest")
      expect(decode?.attributes.get("dispatch.job")).toBe("not-a-job-id")
      expect(spans.some((s) => s.attributes.has("dispatch.name"))).toBe(false)
      const untyped = await startRecorded(simOf(), { ...requestOf(1), job: 7 })
      expect(untyped.spans.find((s) => s.name === "dispatch.start.checkGates")?.attributes.has("dispatch.job")).toBe(false)
      expect(untyped.logs.length).toBeGreaterThan(0)
      expect(untyped.logs.some((l) => "job" in l.annotations)).toBe(false)
    })

    it.each([["null", null], ["undefined", undefined], ["a string", "start it"]])("a request that is %s is ErrInvalid, with nothing called", async (_, input) => {
      const recorded = simOf()
      const { exit } = await startRecorded(recorded, input)
      expect(errorOf(exit)._tag).toBe("ErrInvalid")
      expect(recorded.calls).toEqual([])
    })
  })
})

// Step 9 on TestClock: the Workload wait, with the simulator's Kueue (workloadDelayMs) for timing and a
// scripted Kueue for Workloads that lack the gate or the check.
describe("step 9: the Workload wait", () => {
  const kueue = configOf("kueue")
  const backend = backendOf(kueue)
  const name1 = trainJobNameOf(1)

  const simKueue = (workloadDelayMs: number) =>
    simOf({ controllers: { kueue: { workloadDelayMs, queues: { "team-queue": { admissionChecks: ["dispatch-check"] } } } } })

  describe("Start, step 8 in Kueue mode", () => {
    it("refuses a new TrainJob that Kueue did not suspend (Kueue does not manage it), without waiting for a Workload", async () => {
      const recorded = simOf()
      const error = errorOf(await runStart(recorded, backend, requestOf(1)))
      expect(error._tag).toBe("ErrRejected")
      expect(error.reasons.join(" ")).toContain("spec.suspend")
      expect(recorded.calls.filter((c) => c.request.verb === "list")).toEqual([])
      expect(stored(recorded, "trainjobs")).toEqual([])
      expect(recorded.sim.system.get("trainingruntimes", namespace, name1)).toBeUndefined()
    })
  })

  describe("Start, step 9: the Kueue Workload", () => {
    it("passes when the Workload appears at 29 s with timeouts.workload 30 s, leaving the job gated", async () => {
      const recorded = simKueue(29_000)
      const result = valueOf(await runStart(recorded, backend, requestOf(1)))
      expect(result.name).toBe(name1)
      const workloads = stored(recorded, "workloads")
      expect(workloads).toHaveLength(1)
      expect((workloads[0]?.metadata?.["annotations"] as Record<string, string>)[admissionGatedBy]).toContain(admissionGateName(kueue))
      expect((stored(recorded, "trainjobs")[0]?.["spec"] as Record<string, unknown>)["suspend"]).toBe(true)
      const lists = recorded.calls.filter((c) => c.request.verb === "list")
      expect(lists.length).toBeGreaterThanOrEqual(29)
      expect(lists.length).toBeLessThanOrEqual(31)
    })

    it("fails when the Workload appears only at 31 s: ErrRejected, and the TrainJob and copy are stopped", async () => {
      const recorded = simKueue(31_000)
      const error = errorOf(await runStart(recorded, backend, requestOf(1)))
      expect(error._tag).toBe("ErrRejected")
      expect(error.reasons.join(" ")).toContain("no Workload exists")
      expect(error).toMatchObject({ ref: { namespace, name: name1 } })
      expect(stored(recorded, "trainjobs")).toEqual([])
      expect(recorded.sim.system.get("trainingruntimes", namespace, name1)).toBeUndefined()
    })

    it.each([
      ["without dispatch's gate", { gate: false, check: true }, "admission gate"],
      ["without the admission check", { gate: true, check: false }, "admission check"]
    ] as const)("fails for a Workload %s, and stops the TrainJob", async (_, options, words) => {
      const recorded = simOf()
      suspendOnCreate(recorded)
      recorded.sim.addController(scriptedKueue(options))
      const error = errorOf(await runStart(recorded, backend, requestOf(1)))
      expect(error._tag).toBe("ErrRejected")
      expect(error.reasons.join(" ")).toContain(words)
      expect(stored(recorded, "trainjobs")).toEqual([])
    })

    it("passes with the scripted Kueue when the Workload has both", async () => {
      const recorded = simOf()
      suspendOnCreate(recorded)
      recorded.sim.addController(scriptedKueue({ gate: true, check: true }))
      valueOf(await runStart(recorded, backend, requestOf(1)))
      expect(stored(recorded, "trainjobs")).toHaveLength(1)
    })
  })
})

// Start's spans cost more CPU than its API calls: they are made for a tracer the caller installed, and not
// for Effect's native tracer, which keeps them for no one. What a Cluster call sees as its parent span
// tells which it did.
describe("Start's spans only for an installed tracer", () => {
  // The span names each Cluster call runs under.
  const spansSeenByCalls = async (withTracer: boolean): Promise<ReadonlyArray<string>> => {
    const seen: Array<string> = []
    const recorded = simOf()
    const config = configOf("plain")
    const watching = Layer.effect(
      Cluster,
      Effect.map(Effect.service(Cluster), (cluster) => ({
        ...cluster,
        get: (...args: Parameters<typeof cluster.get>) =>
          Effect.flatMap(Effect.option(Effect.currentSpan), (span) => {
            seen.push(Option.match(span, { onNone: () => "(none)", onSome: (s) => s.name }))
            return cluster.get(...args)
          })
      }))
    ).pipe(Layer.provide(SimCluster(recorded.face, { callMs: config.timeouts.callMs })))
    const tracer = Tracer.make({ span: (options) => new Tracer.NativeSpan(options) })
    const program = start(backendOf(config), requestOf(1)).pipe(Effect.provide(Layer.merge(watching, Layer.succeed(InFlight, makeInFlight()))))
    const exit = await runOnTestClock(withTracer ? program.pipe(Effect.withTracer(tracer)) : program)
    expect(exit._tag).toBe("Success")
    return seen
  }

  describe("Start's spans", () => {
    it("are made for a tracer the caller installed", async () => {
      expect(await spansSeenByCalls(true)).toEqual(["dispatch.start.readRuntime", "dispatch.start.readBack"])
    })

    it("are not made for Effect's native tracer", async () => {
      expect(await spansSeenByCalls(false)).toEqual(["(none)", "(none)"])
    })
  })
})

// Steps 7, 8 and 9 under passing faults: a 503, a 429 with Retry-After or an unanswered call is tried again
// in place (RetryPolicy); only after the policy's tries does the step fail, and then Start stops its
// TrainJob and says ErrRejected with the cause that decided it. Checked against what the simulator stores.
describe("steps 7, 8 and 9 under passing faults", () => {
  const plain = backendOf(configOf("plain"))
  const kueue = backendOf(configOf("kueue"))
  const name1 = trainJobNameOf(1)
  const kueueQueues = { kueue: { queues: { "team-queue": { admissionChecks: ["dispatch-check"] } } } }

  const uidOf = (object: KubeObject | undefined): unknown => object?.metadata?.["uid"]
  const ownerUids = (object: KubeObject | undefined): ReadonlyArray<unknown> =>
    ((object?.metadata?.["ownerReferences"] as ReadonlyArray<Record<string, unknown>> | undefined) ?? []).map((o) => o["uid"])
  const copyOf = (recorded: RecordedSim): KubeObject | undefined => recorded.sim.system.get("trainingruntimes", namespace, name1)

  /** A recorded simulator that also notes the simulator's time of every call. */
  const timedSimOf = (faults: ReadonlyArray<FaultRule>, controllers?: object): RecordedSim & { readonly times: Array<{ verb: string; resource: string; at: number }> } => {
    const recorded = simOf({ faults, ...(controllers === undefined ? {} : { controllers }) })
    const times: Array<{ verb: string; resource: string; at: number }> = []
    return { ...intercepted(recorded, (request, next) => (times.push({ verb: request.verb, resource: request.resource, at: recorded.sim.now() }), next(request))), times }
  }

  const callsOf = (recorded: RecordedSim, verb: string, resource: string) => recorded.calls.filter((c) => c.request.verb === verb && c.request.resource === resource)

  /** The job started: one TrainJob, suspended, owning its copy. */
  const expectStarted = (recorded: RecordedSim, uid: string): void => {
    expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([uid])
    expect(ownerUids(copyOf(recorded))).toEqual([uid])
  }

  /** The job stopped: nothing of it left. */
  const expectNothingLeft = (recorded: RecordedSim): void => {
    expect(stored(recorded, "trainjobs")).toEqual([])
    expect(copyOf(recorded)).toBeUndefined()
  }

  describe("Start retries a passing fault inside steps 7, 8 and 9", () => {
    it("a 503 on the owner PATCH is tried again, and Start succeeds with the copy owned", async () => {
      const recorded = simOf({ faults: [{ verb: "patch", resource: "trainingruntimes", nth: 1, action: { type: "status", code: 503 } }] })
      const result = valueOf(await runStart(recorded, plain, requestOf(1)))
      expectStarted(recorded, result.uid)
      expect(callsOf(recorded, "patch", "trainingruntimes")).toHaveLength(2)
    })

    it("a 503 on the read-back GET is tried again, and Start succeeds", async () => {
      const recorded = simOf({ faults: [{ verb: "get", resource: "trainjobs", nth: 1, action: { type: "status", code: 503 } }] })
      const result = valueOf(await runStart(recorded, plain, requestOf(1)))
      expectStarted(recorded, result.uid)
      expect(callsOf(recorded, "get", "trainjobs")).toHaveLength(2)
    })

    it("an unanswered read-back GET is tried again, and Start succeeds", async () => {
      const recorded = simOf({ faults: [{ verb: "get", resource: "trainjobs", nth: 1, action: { type: "drop" } }] })
      const result = valueOf(await runStart(recorded, plain, requestOf(1)))
      expectStarted(recorded, result.uid)
      expect(callsOf(recorded, "get", "trainjobs")).toHaveLength(2)
    })

    it("an owner PATCH that landed unanswered, then a 503 on the read-back, still starts the job owned and read back", async () => {
      const recorded = simOf({
        faults: [
          { verb: "patch", resource: "trainingruntimes", nth: 1, action: { type: "drop" } },
          { verb: "get", resource: "trainjobs", nth: 1, action: { type: "status", code: 503 } }
        ]
      })
      const result = valueOf(await runStart(recorded, plain, requestOf(1)))
      expectStarted(recorded, result.uid)
    })

    it("a 429 is tried again no sooner than its Retry-After", async () => {
      const recorded = timedSimOf([{ verb: "patch", resource: "trainingruntimes", nth: 1, action: { type: "status", code: 429, retryAfterSeconds: 3 } }])
      const result = valueOf(await runStart(recorded, plain, requestOf(1)))
      expectStarted(recorded, result.uid)
      const patches = recorded.times.filter((t) => t.verb === "patch" && t.resource === "trainingruntimes")
      expect(patches).toHaveLength(2)
      // The retry reads the copy first, then patches: both after the wait.
      const afterWait = recorded.times.slice(recorded.times.indexOf(patches[0]!) + 1)
      for (const call of afterWait) expect(call.at - patches[0]!.at).toBeGreaterThanOrEqual(3000)
    })

    it.each([
      ["the owner PATCH", { verb: "patch", resource: "trainingruntimes" }, "the runtime copy's owner could not be set"],
      ["the read-back GET", { verb: "get", resource: "trainjobs" }, "the TrainJob could not be read back"]
    ] as const)("a 503 on %s every try ends in ErrRejected with the passing cause; the TrainJob and copy are stopped", async (_, call, first) => {
      const recorded = simOf({ faults: [{ ...call, times: RETRY_POLICY.tries, nth: 1, action: { type: "status", code: 503 } }] })
      const error = errorOf(await runStart(recorded, plain, requestOf(1)))
      expect(error._tag).toBe("ErrRejected")
      expect(error.reasons[0]).toBe(first)
      expect(error).toMatchObject({ cause: { kind: "Passing", reason: "ServerError", code: 503 } })
      expect(isPassing(error)).toBe(true)
      expect(callsOf(recorded, call.verb, call.resource).length).toBeGreaterThanOrEqual(RETRY_POLICY.tries)
      expectNothingLeft(recorded)
    })

    it("a Retry-After longer than the policy allows ends the step at once, and the error carries the wait", async () => {
      const waitS = RETRY_POLICY.maxWaitMs / 1000 + 1
      const recorded = simOf({ faults: [{ verb: "get", resource: "trainjobs", nth: 1, action: { type: "status", code: 429, retryAfterSeconds: waitS } }] })
      const error = errorOf(await runStart(recorded, plain, requestOf(1)))
      expect(error._tag).toBe("ErrRejected")
      expect(error).toMatchObject({ cause: { kind: "Passing", code: 429, retryAfterMs: waitS * 1000 } })
      expect(retryAfterOf(error)).toBe(waitS * 1000)
      expect(callsOf(recorded, "get", "trainjobs")).toHaveLength(1)
      expectNothingLeft(recorded)
    })

    it("a refusal of the owner PATCH is not retried, and its cause says Refused", async () => {
      const recorded = simOf({ faults: [{ verb: "patch", resource: "trainingruntimes", nth: 1, action: { type: "status", code: 422 } }] })
      const error = errorOf(await runStart(recorded, plain, requestOf(1)))
      expect(error._tag).toBe("ErrRejected")
      expect(error).toMatchObject({ cause: { kind: "Refused", reason: "Invalid", code: 422 } })
      expect(isPassing(error)).toBe(false)
      expect(callsOf(recorded, "patch", "trainingruntimes")).toHaveLength(1)
      expectNothingLeft(recorded)
    })

    it("a read-back that differs from what Start wrote carries no cause: a refusal", async () => {
      // The TrainJob is read back unsuspended, as if someone else had opened it.
      const recorded = simOf()
      const unsuspended = intercepted(recorded, (request, next) => {
        const outcome = next(request)
        if (request.verb !== "get" || request.resource !== "trainjobs" || outcome.kind !== "answered") return outcome
        const body = outcome.response.body as KubeObject
        return { ...outcome, response: { ...outcome.response, body: { ...body, spec: { ...(body["spec"] as object), suspend: false } } } }
      })
      const error = errorOf(await runStart(unsuspended, plain, requestOf(1)))
      expect(error._tag).toBe("ErrRejected")
      expect("cause" in error && error.cause !== undefined).toBe(false)
      expect(isPassing(error)).toBe(false)
    })

    it("in Kueue mode, a Workload list failing with 503 until timeouts.workload ends in ErrRejected with the passing cause", async () => {
      const recorded = simOf({ controllers: kueueQueues, faults: [{ verb: "list", resource: "workloads", action: { type: "status", code: 503 } }] })
      const error = errorOf(await runStart(recorded, kueue, requestOf(1)))
      expect(error._tag).toBe("ErrRejected")
      expect(error).toMatchObject({ cause: { kind: "Passing", reason: "ServerError", code: 503 } })
      expectNothingLeft(recorded)
    })

    it("in Kueue mode, a Workload list answered 429 is not read again before its Retry-After", async () => {
      const recorded = timedSimOf([{ verb: "list", resource: "workloads", nth: 1, action: { type: "status", code: 429, retryAfterSeconds: 5 } }], kueueQueues)
      valueOf(await runStart(recorded, kueue, requestOf(1)))
      const lists = recorded.times.filter((t) => t.verb === "list" && t.resource === "workloads")
      expect(lists.length).toBeGreaterThanOrEqual(2)
      expect(lists[1]!.at - lists[0]!.at).toBeGreaterThanOrEqual(5000)
    })
  })
})

// What a Start that ends in an error leaves on the cluster. A copy an earlier attempt left is deleted once
// this attempt is refused (nothing will run on it), kept after a passing failure (the retry reuses it),
// and kept while a TrainJob of its name is there. Checked against what the simulator stores.
describe("what a Start that ends in an error leaves", () => {
  const open = backendOf(configOf("plain"))
  const name1 = trainJobNameOf(1)
  const copyOf = (recorded: RecordedSim): KubeObject | undefined => recorded.sim.system.get("trainingruntimes", namespace, name1)

  describe("Start leaves no runtime copy behind a refusal", () => {
    it("attempt 1's copy create lands unanswered; attempt 2 reuses the copy and its TrainJob create is refused 422: the copy is deleted", async () => {
      const recorded = simOf({
        faults: [
          { verb: "create", resource: "trainingruntimes", nth: 1, action: { type: "drop" } },
          { verb: "create", resource: "trainjobs", nth: 1, action: { type: "status", code: 422, message: "spec.trainer: invalid" } }
        ]
      })
      const first = errorOf(await runStart(recorded, open, requestOf(1)))
      expect(isPassing(first)).toBe(true)
      expect(copyOf(recorded)).toBeDefined()
      const second = errorOf(await runStart(recorded, open, requestOf(1)))
      expect(second._tag).toBe("ErrRejected")
      expect(second).toMatchObject({ cause: { kind: "Refused", reason: "Invalid", code: 422 } })
      expect(second.reasons.join(" ")).toContain("spec.trainer: invalid")
      expect(copyOf(recorded)).toBeUndefined()
      expect(stored(recorded, "trainjobs")).toEqual([])
    })

    it("a reused copy is kept after a passing failure of the TrainJob create, and the next attempt starts the job on it", async () => {
      const recorded = simOf({
        faults: [
          { verb: "create", resource: "trainingruntimes", nth: 1, action: { type: "drop" } },
          { verb: "create", resource: "trainjobs", nth: 1, action: { type: "status", code: 503 } }
        ]
      })
      errorOf(await runStart(recorded, open, requestOf(1)))
      const uid = copyOf(recorded)?.metadata?.["uid"]
      const second = errorOf(await runStart(recorded, open, requestOf(1)))
      expect(isPassing(second)).toBe(true)
      expect(copyOf(recorded)?.metadata?.["uid"]).toBe(uid)
      const result = valueOf(await runStart(recorded, open, requestOf(1)))
      expect(stored(recorded, "trainjobs").map((j) => j.metadata?.["uid"])).toEqual([result.uid])
      expect(copyOf(recorded)?.metadata?.["uid"]).toBe(uid)
    })

    it("a reused copy is kept after a refusal while a TrainJob of its name is there", async () => {
      const recorded = simOf({ faults: [{ verb: "create", resource: "trainingruntimes", nth: 1, action: { type: "drop" } }] })
      errorOf(await runStart(recorded, open, requestOf(1)))
      // The TrainJob create is refused, but a TrainJob of the name (another writer's) is there by then.
      const refusing = intercepted(recorded, (request, next) => {
        if (request.verb !== "create" || request.resource !== "trainjobs") return next(request)
        recorded.sim.system.create("trainjobs", { ...(request.body as KubeObject), metadata: { name: name1, namespace } })
        return { kind: "answered", response: { code: 422, body: { kind: "Status", code: 422, reason: "Invalid", message: "refused" } } }
      })
      const error = errorOf(await runStart(refusing, open, requestOf(1)))
      expect(error._tag).toBe("ErrRejected")
      expect(copyOf(recorded)).toBeDefined()
    })

    it("a reused copy whose delete fails every try is reported, retryable: the next attempt deletes it", async () => {
      const recorded = simOf({
        faults: [
          { verb: "create", resource: "trainingruntimes", nth: 1, action: { type: "drop" } },
          { verb: "create", resource: "trainjobs", action: { type: "status", code: 422 } },
          { verb: "delete", resource: "trainingruntimes", nth: 1, times: RETRY_POLICY.tries, action: { type: "status", code: 503 } }
        ]
      })
      errorOf(await runStart(recorded, open, requestOf(1)))
      const second = errorOf(await runStart(recorded, open, requestOf(1)))
      expect(second._tag).toBe("ErrUnreachable")
      expect(second.reasons.join(" ")).toContain("the runtime copy could not be deleted")
      expect(copyOf(recorded)).toBeDefined()
      const third = errorOf(await runStart(recorded, open, requestOf(1)))
      expect(third._tag).toBe("ErrRejected")
      expect(copyOf(recorded)).toBeUndefined()
    })

    it("a reused copy whose TrainJob cannot be read after the refusal is kept and reported, retryable", async () => {
      const recorded = simOf({
        faults: [
          { verb: "create", resource: "trainingruntimes", nth: 1, action: { type: "drop" } },
          { verb: "create", resource: "trainjobs", nth: 1, action: { type: "status", code: 422 } },
          { verb: "get", resource: "trainjobs", nth: 1, action: { type: "status", code: 403, message: "no reading trainjobs" } }
        ]
      })
      errorOf(await runStart(recorded, open, requestOf(1)))
      const second = errorOf(await runStart(recorded, open, requestOf(1)))
      expect(second._tag).toBe("ErrUnreachable")
      expect(second.reasons.at(-1)).toContain("the runtime copy could not be deleted: ")
      expect(second.reasons.at(-1)).toContain("no reading trainjobs")
      expect(copyOf(recorded)).toBeDefined()
    })
  })
})

// A retried Start that finds the TrainJob of its name already there (it "adopts" it): after success,
// after Open, after an unanswered create. A retry never deletes a TrainJob it did not create, nor the
// runtime copy such a TrainJob runs on.
describe("a retried Start adopting its TrainJob", () => {
  const name1 = trainJobNameOf(1)
  const kueueQueues = { kueue: { queues: { "team-queue": { admissionChecks: ["dispatch-check"] } } } }

  const uidOf = (object: KubeObject | undefined): unknown => object?.metadata?.["uid"]
  const ownerUids = (object: KubeObject | undefined): ReadonlyArray<unknown> =>
    ((object?.metadata?.["ownerReferences"] as ReadonlyArray<Record<string, unknown>> | undefined) ?? []).map((o) => o["uid"])

  describe("a retried Start after Open", () => {
    it.each(["plain", "kueue"] as const)("in %s mode returns the same reference and deletes nothing", async (mode) => {
      const config = configOf(mode)
      const backend = backendOf(config)
      const recorded = simOf(mode === "kueue" ? { controllers: kueueQueues } : {})
      const first = valueOf(await runStart(recorded, backend, requestOf(1)))
      openInStore(recorded, config, name1)
      const retried = valueOf(await runStart(recorded, backend, requestOf(1)))
      expect(retried).toEqual({ ...first, created: false, gateClosed: false })
      expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([first.uid])
      expect(ownerUids(recorded.sim.system.get("trainingruntimes", namespace, name1))).toEqual([first.uid])
      expect(recorded.calls.filter((c) => c.request.verb === "delete")).toEqual([])
    })
  })

  describe("a retried Start whose TrainJob create fails definitely", () => {
    it("leaves the copy an earlier Start's TrainJob owns (and runs on)", async () => {
      const config = configOf("plain")
      const recorded = simOf()
      const first = valueOf(await runStart(recorded, backendOf(config), requestOf(1)))
      recorded.sim.setFaults([{ verb: "create", resource: "trainjobs", action: { type: "status", code: 500 } }])
      expect(errorOf(await runStart(recorded, backendOf(config), requestOf(1)))._tag).toBe("ErrUnreachable")
      expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([first.uid])
      expect(ownerUids(recorded.sim.system.get("trainingruntimes", namespace, name1))).toEqual([first.uid])
    })
  })

  describe("a retried Start whose TrainJob create fails definitely, after an unanswered create landed", () => {
    it("keeps the copy that TrainJob runs on, though step 7 never made it the owner", async () => {
      const config = configOf("plain")
      const recorded = simOf({ faults: [{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "drop" } }] })
      const inFlight = makeInFlight()
      expect(errorOf(await runStart(recorded, backendOf(config), requestOf(1), inFlight))._tag).toBe("ErrOutcomeUnknown")
      const copy = recorded.sim.system.get("trainingruntimes", namespace, name1)
      recorded.sim.setFaults([{ verb: "create", resource: "trainjobs", action: { type: "refuse" } }])
      expect(errorOf(await runStart(recorded, backendOf(config), requestOf(1), inFlight))._tag).toBe("ErrUnreachable")
      expect(stored(recorded, "trainjobs")).toHaveLength(1)
      expect(uidOf(recorded.sim.system.get("trainingruntimes", namespace, name1))).toBe(uidOf(copy))
      recorded.sim.setFaults([])
      expect(valueOf(await runStart(recorded, backendOf(config), requestOf(1), inFlight)).uid).toBe(uidOf(stored(recorded, "trainjobs")[0]))
    })
  })

  describe("a retried Start that adopts a TrainJob and then fails", () => {
    it("keeps the TrainJob (ErrRejected with its reference) when its Workload does not come in time", async () => {
      const config = configOf("kueue")
      // The first create lands but its answer is lost; Kueue takes 40 s to make the Workload.
      const recorded = simOf({
        controllers: { kueue: { ...kueueQueues.kueue, workloadDelayMs: 40_000 } },
        faults: [{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "drop" } }]
      })
      const inFlight = makeInFlight()
      expect(errorOf(await runStart(recorded, backendOf(config), requestOf(1), inFlight))._tag).toBe("ErrOutcomeUnknown")
      const landed = recorded.sim.system.get("trainjobs", namespace, name1)
      expect(landed).toBeDefined()
      const error = errorOf(await runStart(recorded, backendOf(config), requestOf(1), inFlight))
      expect(error._tag).toBe("ErrRejected")
      expect(error).toMatchObject({ ref: { namespace, name: name1, uid: uidOf(landed) } })
      expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([uidOf(landed)])
      expect(ownerUids(recorded.sim.system.get("trainingruntimes", namespace, name1))).toEqual([uidOf(landed)])
    })

    it("keeps the runtime copy the existing TrainJob runs on when the adoption is refused, and hands it to that TrainJob", async () => {
      const config = configOf("plain")
      const recorded = simOf({ faults: [{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "drop" } }] })
      const inFlight = makeInFlight()
      expect(errorOf(await runStart(recorded, backendOf(config), requestOf(1), inFlight))._tag).toBe("ErrOutcomeUnknown")
      const landed = recorded.sim.system.get("trainjobs", namespace, name1)
      const copy = recorded.sim.system.get("trainingruntimes", namespace, name1)
      // The same job, retried as a new attempt: its comment and attempt token differ, so it is not adopted.
      const error = errorOf(await runStart(recorded, backendOf(config), { ...requestOf(1), attempt: 2 }, inFlight))
      expect(error._tag).toBe("ErrRejected")
      expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([uidOf(landed)])
      const kept = recorded.sim.system.get("trainingruntimes", namespace, name1)
      expect(uidOf(kept)).toBe(uidOf(copy))
      expect(ownerUids(kept)).toEqual([uidOf(landed)])
    })
  })

  /** What a user may do to the source runtime once the job is running. */
  const sourceChanges = {
    "the source runtime is edited": (recorded: ReturnType<typeof simOf>, config: ReturnType<typeof configOf>) => {
      const source = recorded.sim.system.get("clustertrainingruntimes", undefined, "torch-distributed")!
      recorded.sim.system.update("clustertrainingruntimes", { ...source, spec: { ...(source["spec"] as object), mlPolicy: { numNodes: 3 } } })
      return config
    },
    "the source runtime is deleted": (recorded: ReturnType<typeof simOf>, config: ReturnType<typeof configOf>) => {
      recorded.sim.system.delete("clustertrainingruntimes", undefined, "torch-distributed", "Background")
      return config
    },
    "the source runtime is dropped from the config": (_recorded: ReturnType<typeof simOf>, config: ReturnType<typeof configOf>) => ({
      ...config,
      runtimes: config.runtimes.filter((r) => r.name !== "torch-distributed")
    })
  } as const

  describe("a retried Start after success, once the source runtime changed", () => {
    const cases = (["plain", "kueue"] as const).flatMap((mode) =>
      Object.keys(sourceChanges).flatMap((change) => [true, false].map((opened) => [mode, change as keyof typeof sourceChanges, opened] as const))
    )
    it.each(cases)("in %s mode, when %s (opened: %s), adopts the job on its frozen copy and reports its gate truthfully", async (mode, change, opened) => {
      const config = configOf(mode)
      const recorded = simOf(mode === "kueue" ? { controllers: kueueQueues } : {})
      const first = valueOf(await runStart(recorded, backendOf(config), requestOf(1)))
      expect(first).toMatchObject({ created: true, gateClosed: true })
      const frozen = recorded.sim.system.get("trainingruntimes", namespace, name1)!
      if (opened) openInStore(recorded, config, name1)
      const changed = sourceChanges[change](recorded, config)
      const from = recorded.calls.length
      const retried = valueOf(await runStart(recorded, backendOf(changed), requestOf(1)))
      expect(retried).toMatchObject({ ref: first.ref, uid: first.uid, created: false, gateClosed: !opened })
      expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([first.uid])
      const copy = recorded.sim.system.get("trainingruntimes", namespace, name1)
      expect(uidOf(copy)).toBe(uidOf(frozen))
      expect(copy?.["spec"]).toEqual(frozen["spec"])
      expect(ownerUids(copy)).toEqual([first.uid])
      expect(recorded.calls.slice(from).filter((c) => c.request.verb === "delete" || c.request.verb === "create" && c.outcome.kind === "answered" && c.outcome.response.code === 201)).toEqual([])
    })

    it("still refuses a request whose runtime is gone when no job of its name exists", async () => {
      const config = configOf("plain")
      const recorded = simOf()
      sourceChanges["the source runtime is deleted"](recorded, config)
      expect(errorOf(await runStart(recorded, backendOf(config), requestOf(1)))._tag).toBe("ErrUnsupported")
      expect(stored(recorded, "trainingruntimes").filter((r) => String(r.metadata?.["name"]).startsWith("dj-"))).toEqual([])
    })

    it("does not adopt a copy that names another TrainJob of its name: the edited source is refused", async () => {
      const config = configOf("plain")
      const recorded = simOf()
      const first = valueOf(await runStart(recorded, backendOf(config), requestOf(1)))
      // The copy names a TrainJob of its name that is gone (an earlier one): it is not this job's runtime.
      const copy = recorded.sim.system.get("trainingruntimes", namespace, name1)!
      const owners = (copy.metadata?.["ownerReferences"] as ReadonlyArray<Record<string, unknown>>).map((o) => ({ ...o, uid: "00000000-0000-4000-8000-000000000000" }))
      recorded.sim.system.update("trainingruntimes", { ...copy, metadata: { ...copy.metadata, ownerReferences: owners } })
      sourceChanges["the source runtime is edited"](recorded, config)
      const error = errorOf(await runStart(recorded, backendOf(config), requestOf(1)))
      expect(error._tag).toBe("ErrRejected")
      expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([first.uid])
    })
  })
})

// Races with Trainer around the runtime copy: Trainer (v2.0-2.2) adds its resource-in-use finalizer to a
// runtime as soon as a TrainJob references it, and a copy being deleted may still be found by a retry.
describe("races with Trainer around the runtime copy", () => {
  const open = backendOf(configOf("plain"))
  const name1 = trainJobNameOf(1)
  const finalizer = "trainer.kubeflow.org/resource-in-use"

  const metaOf = (object: KubeObject | undefined): Record<string, unknown> => object?.metadata ?? {}

  /** Acts on the simulator's store right after each TrainJob create succeeds, as a concurrent writer would. */
  const afterTrainJobCreate = (recorded: RecordedSim, act: () => void): RecordedSim => afterCall(recorded, "create", "trainjobs", act)

  /** Changes the copy with an Update right after each TrainJob create succeeds. */
  const changeCopyAfterTrainJobCreate = (recorded: RecordedSim, change: (copy: KubeObject) => KubeObject): RecordedSim =>
    afterTrainJobCreate(recorded, () => recorded.sim.system.update("trainingruntimes", change(recorded.sim.system.get("trainingruntimes", namespace, name1)!)))

  /** Trainer's runtime finalizer, added right after each TrainJob create succeeds. */
  const withTrainerFinalizer = (recorded: RecordedSim): RecordedSim =>
    changeCopyAfterTrainJobCreate(recorded, (copy) => ({ ...copy, metadata: { ...copy.metadata, finalizers: [finalizer] } }))

  describe("Start, step 7, racing Trainer's finalizer", () => {
    it("sets the owner after Trainer bumped the copy's resourceVersion, keeping the finalizer", async () => {
      const recorded = withTrainerFinalizer(simOf())
      const result = valueOf(await runStart(recorded, open, requestOf(1)))
      const copy = recorded.sim.system.get("trainingruntimes", namespace, name1)
      expect((metaOf(copy)["ownerReferences"] as ReadonlyArray<Record<string, unknown>>).map((o) => o["uid"])).toEqual([result.uid])
      expect(metaOf(copy)["finalizers"]).toEqual([finalizer])
      expect(stored(recorded, "trainjobs")).toHaveLength(1)
    })
  })

  describe("Start, step 7, a copy changed by someone else", () => {
    it("is not owned after the conflict: ErrRejected, and the TrainJob is stopped", async () => {
      const recorded = changeCopyAfterTrainJobCreate(simOf(), (copy) => ({ ...copy, spec: { ...(copy["spec"] as object), mlPolicy: { numNodes: 2, torch: {} } } }))
      const error = errorOf(await runStart(recorded, open, requestOf(1)))
      expect(error._tag).toBe("ErrRejected")
      expect(error.reasons.join(" ")).toContain("changed since it was created")
      expect(stored(recorded, "trainjobs")).toEqual([])
    })
  })

  describe("Start, step 5, a copy being deleted", () => {
    it("is not reused: ErrUnreachable (retry later), and no TrainJob is created", async () => {
      const recorded = simOf()
      valueOf(await runStart(recorded, open, requestOf(1)))
      const copy = recorded.sim.system.get("trainingruntimes", namespace, name1)!
      recorded.sim.system.update("trainingruntimes", { ...copy, metadata: { ...copy.metadata, finalizers: [finalizer] } })
      recorded.sim.system.delete("trainjobs", namespace, name1, "Background")
      recorded.sim.system.delete("trainingruntimes", namespace, name1, "Background")
      expect(metaOf(recorded.sim.system.get("trainingruntimes", namespace, name1))["deletionTimestamp"]).toBeDefined()
      const error = errorOf(await runStart(recorded, open, requestOf(1)))
      expect(error._tag).toBe("ErrUnreachable")
      expect(error.reasons.join(" ")).toContain("being deleted")
      expect(stored(recorded, "trainjobs")).toEqual([])
    })
  })

  describe("Start, step 8, a TrainJob someone deleted behind a finalizer", () => {
    it("is not a success: ErrRejected naming the deletion", async () => {
      const recorded = simOf()
      const deleting = afterTrainJobCreate(recorded, () => {
        const job = recorded.sim.system.get("trainjobs", namespace, name1)!
        recorded.sim.system.update("trainjobs", { ...job, metadata: { ...job.metadata, finalizers: ["example.com/keep"] } })
        recorded.sim.system.delete("trainjobs", namespace, name1, "Background")
      })
      const error = errorOf(await runStart(deleting, open, requestOf(1)))
      expect(error._tag).toBe("ErrRejected")
      expect(error.reasons.join(" ")).toContain("is being deleted")
    })
  })
})
