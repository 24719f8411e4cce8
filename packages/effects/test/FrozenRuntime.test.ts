// A job's frozen runtime, read on its own: which copy is a job's (its single owner, a live TrainJob of the
// copy's name with that uid) and the config it renders under. Start's tests reach these through whole
// Starts; here each condition is turned on and off alone, and the simulator's store is what is read.
import { Effect, Exit, Layer } from "effect"
import { describe, expect, it } from "vitest"
import type { FaultRule, KubeObject } from "@dispatch/sim"
import { configListing, frozenRuntime, ownerOfItsName } from "../src/FrozenRuntime.ts"
import type { KubeResource } from "../src/KubeObjects.ts"
import { RETRY_POLICY } from "../src/RetryPolicy.ts"
import { SimCluster } from "@dispatch/sim/cluster"
import { isPassing, type StartError } from "../src/StartErrors.ts"
import { backendOf, configOf, errorOf, namespace, type RecordedSim, requestOf, runOnTestClock, runStart, simOf, trainJobNameOf, valueOf } from "./StartFixture.ts"

const plain = configOf("plain")
const name1 = trainJobNameOf(1)
const owner = (fields: Record<string, unknown> = {}) => ({ apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", name: name1, uid: "u1", ...fields })
const copyWith = (ownerReferences?: ReadonlyArray<Record<string, unknown>>): KubeResource =>
  ({ metadata: { name: name1, ...(ownerReferences === undefined ? {} : { ownerReferences }) } }) as unknown as KubeResource

describe("ownerOfItsName", () => {
  it("is the single TrainJob owner of the copy's own name that has a uid", () => {
    expect(ownerOfItsName(copyWith([owner()]))).toEqual({ uid: "u1" })
  })
  it.each([
    ["no owner list", undefined],
    ["an empty owner list", []],
    ["two owners", [owner(), owner({ uid: "u2" })]],
    ["an owner of another kind", [owner({ kind: "JobSet" })]],
    ["a TrainJob of another name", [owner({ name: trainJobNameOf(2) })]],
    ["a TrainJob owner without a uid", [owner({ uid: undefined })]]
  ])("is nothing with %s", (_, owners) => {
    expect(ownerOfItsName(copyWith(owners))).toBeUndefined()
  })
})

describe("configListing", () => {
  it("keeps the config when the reference is listed, wherever it is in the list", () => {
    for (const ref of plain.runtimes) expect(configListing(plain, ref)).toBe(plain)
  })
  it("adds the reference when only its kind or only its name is listed", () => {
    const otherKind = { kind: "TrainingRuntime" as const, name: "torch-distributed" }
    const otherName = { kind: "ClusterTrainingRuntime" as const, name: "dropped" }
    for (const ref of [otherKind, otherName]) {
      const listed = configListing(plain, ref)
      expect(listed.runtimes).toEqual([...plain.runtimes, ref])
      expect({ ...listed, runtimes: plain.runtimes }).toEqual(plain)
    }
  })
})

describe("frozenRuntime", () => {
  const frozen = (recorded: RecordedSim, request: ReturnType<typeof requestOf>) =>
    runOnTestClock(frozenRuntime(plain, request).pipe(Effect.provide(Layer.fresh(SimCluster(recorded.face, { callMs: plain.timeouts.callMs })))))
  const valueOfExit = <A>(exit: Exit.Exit<A, unknown>): A => {
    if (Exit.isFailure(exit)) throw new Error(`failed: ${String(exit.cause)}`)
    return exit.value
  }
  const started = async () => {
    const recorded = simOf()
    const result = valueOf(await runStart(recorded, backendOf(plain), requestOf(1)))
    return { recorded, uid: result.uid }
  }
  const stored = (recorded: RecordedSim, resource: string): KubeObject => recorded.sim.system.get(resource, namespace, name1)!
  const hold = (recorded: RecordedSim, resource: string): void => {
    const object = stored(recorded, resource)
    recorded.sim.system.update(resource, { ...object, metadata: { ...object.metadata, finalizers: ["example.com/keep"] } })
  }

  it("is the request's reference and the copy its live TrainJob owns", async () => {
    const { recorded } = await started()
    const found = valueOfExit(await frozen(recorded, requestOf(1)))
    expect(found?.ref).toEqual({ kind: "ClusterTrainingRuntime", name: "torch-distributed" })
    expect(found?.object.metadata.uid).toBe(stored(recorded, "trainingruntimes")["metadata"]!["uid"])
  })

  it("reads nothing for a job that is not a JobID or a request without a usable runtime reference", async () => {
    const { recorded } = await started()
    const before = recorded.calls.length
    expect(valueOfExit(await frozen(recorded, { ...requestOf(1), job: "not-a-job-id" }))).toBeUndefined()
    const noRef = requestOf(1)
    const { ["kubeflow/RuntimeRef"]: _dropped, ...extensions } = noRef.spec.extensions
    const withoutRef = { ...noRef, spec: { ...noRef.spec, extensions } } as unknown as ReturnType<typeof requestOf>
    expect(valueOfExit(await frozen(recorded, withoutRef))).toBeUndefined()
    expect(recorded.calls.length).toBe(before)
  })

  it("is nothing without a copy", async () => {
    expect(valueOfExit(await frozen(simOf(), requestOf(1)))).toBeUndefined()
  })

  it("is nothing when the copy is being deleted, when its TrainJob is gone, another, or being deleted", async () => {
    const copyGoing = await started()
    hold(copyGoing.recorded, "trainingruntimes")
    copyGoing.recorded.sim.system.delete("trainingruntimes", namespace, name1, "Background")
    expect(valueOfExit(await frozen(copyGoing.recorded, requestOf(1)))).toBeUndefined()

    // A copy left owned by a TrainJob of its name that no longer exists.
    const jobGone = simOf()
    const source = jobGone.sim.system.get("clustertrainingruntimes", undefined, "torch-distributed")!
    jobGone.sim.system.create("trainingruntimes", { ...source, kind: "TrainingRuntime", metadata: { name: name1, namespace, ownerReferences: [owner({ uid: "u-gone" })] } })
    expect(valueOfExit(await frozen(jobGone, requestOf(1)))).toBeUndefined()
    expect(jobGone.calls.filter((c) => c.request.verb === "get").map((c) => c.request.resource)).toEqual(["trainingruntimes", "trainjobs"])

    const jobOther = await started()
    const copy = stored(jobOther.recorded, "trainingruntimes")
    jobOther.recorded.sim.system.update("trainingruntimes", { ...copy, metadata: { ...copy.metadata, ownerReferences: [owner({ uid: "someone-else" })] } })
    expect(valueOfExit(await frozen(jobOther.recorded, requestOf(1)))).toBeUndefined()

    const jobGoing = await started()
    hold(jobGoing.recorded, "trainjobs")
    jobGoing.recorded.sim.system.delete("trainjobs", namespace, name1, "Orphan")
    expect(stored(jobGoing.recorded, "trainjobs")["metadata"]!["deletionTimestamp"]).toBeDefined()
    expect(valueOfExit(await frozen(jobGoing.recorded, requestOf(1)))).toBeUndefined()
  })
})

describe("Start's frozen-runtime fallback never hides a refusal", () => {
  /** A simulator whose source runtime is missing, the fallback's read of the copy failing with `action`. */
  const missingSource = (action: FaultRule["action"], times?: number): RecordedSim => {
    const recorded = simOf({ faults: [{ verb: "get", resource: "trainingruntimes", name: name1, ...(times === undefined ? {} : { nth: 1, times }), action }] })
    recorded.sim.system.delete("clustertrainingruntimes", undefined, "torch-distributed", "Background")
    return recorded
  }
  const expectDoesNotExistFirst = (error: StartError) => {
    expect(error._tag).toBe("ErrUnsupported")
    expect(error.reasons[0]).toContain("does not exist")
  }

  it("without a fault, a missing source runtime is ErrUnsupported 'does not exist', a refusal with no cause", async () => {
    const recorded = simOf()
    recorded.sim.system.delete("clustertrainingruntimes", undefined, "torch-distributed", "Background")
    const error = errorOf(await runStart(recorded, backendOf(plain), requestOf(1)))
    expectDoesNotExistFirst(error)
    expect(error.reasons).toHaveLength(1)
    expect(isPassing(error)).toBe(false)
  })

  it("a 403 on the fallback's GET keeps the refusal and adds the read's reason; still a refusal", async () => {
    const error = errorOf(await runStart(missingSource({ type: "status", code: 403, message: "no reading copies" }), backendOf(plain), requestOf(1)))
    expectDoesNotExistFirst(error)
    expect(error.reasons.slice(1).join(" ")).toContain("no reading copies")
    expect(error.reasons.slice(1).join(" ")).toContain("the job's frozen runtime could not be read")
    expect(isPassing(error)).toBe(false)
  })

  it("a 503 on every try of the fallback's GET keeps the refusal, with the passing cause: the service tries again", async () => {
    const recorded = missingSource({ type: "status", code: 503, message: "etcd is busy" })
    const error = errorOf(await runStart(recorded, backendOf(plain), requestOf(1)))
    expectDoesNotExistFirst(error)
    expect(error.reasons.slice(1).join(" ")).toContain("etcd is busy")
    expect(error).toMatchObject({ cause: { kind: "Passing", reason: "ServerError", code: 503 } })
    expect(isPassing(error)).toBe(true)
    expect(recorded.calls.filter((c) => c.request.verb === "get" && c.request.name === name1)).toHaveLength(RETRY_POLICY.tries)
  })

  it("a 503 once on the fallback's GET is tried again, and the plain refusal follows", async () => {
    const error = errorOf(await runStart(missingSource({ type: "status", code: 503 }, 1), backendOf(plain), requestOf(1)))
    expectDoesNotExistFirst(error)
    expect(error.reasons).toHaveLength(1)
    expect(isPassing(error)).toBe(false)
  })

  it("a refusal from step 5 (the copy's spec differs) stays ErrRejected, with its reference, when the fallback's read of the TrainJob fails", async () => {
    const recorded = simOf()
    valueOf(await runStart(recorded, backendOf(plain), requestOf(1)))
    // Someone edits the job's copy, which its live TrainJob owns; then the TrainJob cannot be read.
    const copy = recorded.sim.system.get("trainingruntimes", namespace, name1)!
    recorded.sim.system.update("trainingruntimes", { ...copy, spec: { ...(copy["spec"] as Record<string, unknown>), mlPolicy: { numNodes: 7 } } })
    recorded.sim.setFaults([{ verb: "get", resource: "trainjobs", name: name1, action: { type: "status", code: 503 } }])
    const before = recorded.calls.length
    const error = errorOf(await runStart(recorded, backendOf(plain), requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(error.reasons[0]).toContain("differs from its source")
    expect(error).toMatchObject({ ref: { namespace, name: name1 }, cause: { kind: "Passing", code: 503 } })
    expect(recorded.calls.slice(before).filter((c) => c.request.verb === "get" && c.request.resource === "trainjobs")).toHaveLength(RETRY_POLICY.tries)
  })
})
