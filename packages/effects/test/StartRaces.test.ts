// Races with Trainer around the runtime copy: Trainer (v2.0-2.2) adds its resource-in-use finalizer to a
// runtime as soon as a TrainJob references it, and a copy being deleted may still be found by a retry.
import { describe, expect, it } from "vitest"
import type { KubeObject } from "@dispatch/sim"
import { afterCall, backendOf, configOf, errorOf, namespace, type RecordedSim, requestOf, runStart, simOf, stored, trainJobNameOf, valueOf } from "./StartFixture.ts"

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
