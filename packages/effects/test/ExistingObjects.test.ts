// deleteIfExists on its own: the delete it sends (background, with the uid as precondition when one is
// known) and what it makes of the answer. The simulator's store is what is read.
import { Effect, Exit, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { gateRefusal, openBackend } from "../src/Backend.ts"
import { deleteIfExists } from "../src/ExistingObjects.ts"
import { TrainingRuntimes } from "../src/ResourceKind.ts"
import { SimCluster } from "@dispatch/sim/cluster"
import { configOf, namespace, type RecordedSim, runOnTestClock, simOf, torchRuntime } from "./StartFixture.ts"

const name = "dj-copy-s1"
const key = { namespace, name }
const withCopy = (): RecordedSim => {
  const recorded = simOf()
  const runtime = torchRuntime(name, "TrainingRuntime") as { metadata: Record<string, unknown> }
  recorded.sim.system.create("trainingruntimes", { ...runtime, metadata: { ...runtime.metadata, namespace } })
  return recorded
}
const run = (recorded: RecordedSim, uid: string | undefined) =>
  runOnTestClock(deleteIfExists(TrainingRuntimes, key, uid).pipe(Effect.provide(Layer.fresh(SimCluster(recorded.face, { callMs: 1000 })))))
const deleteBody = (recorded: RecordedSim) => recorded.calls.find((c) => c.request.verb === "delete")?.request.body

describe("deleteIfExists", () => {
  it("deletes in the background with the uid as precondition", async () => {
    const recorded = withCopy()
    const uid = recorded.sim.system.get("trainingruntimes", namespace, name)!.metadata!["uid"] as string
    expect(Exit.isSuccess(await run(recorded, uid))).toBe(true)
    expect(deleteBody(recorded)).toMatchObject({ propagationPolicy: "Background", preconditions: { uid } })
    expect(recorded.sim.system.get("trainingruntimes", namespace, name)).toBeUndefined()
  })
  it("without a uid deletes whatever has the name, without preconditions", async () => {
    const recorded = withCopy()
    expect(Exit.isSuccess(await run(recorded, undefined))).toBe(true)
    expect(deleteBody(recorded)).toMatchObject({ propagationPolicy: "Background" })
    expect(deleteBody(recorded)).not.toHaveProperty("preconditions")
  })
  it("is done when the object is already gone, and fails on a uid that is not the object's", async () => {
    expect(Exit.isSuccess(await run(simOf(), "any"))).toBe(true)
    const recorded = withCopy()
    const exit = await run(recorded, "another-uid")
    expect(Exit.isFailure(exit)).toBe(true)
    expect(recorded.sim.system.get("trainingruntimes", namespace, name)).toBeDefined()
  })
})

describe("gateRefusal", () => {
  it("says what each closed gate stands for", () => {
    expect(gateRefusal({ state: "open" })).toBeUndefined()
    expect(openBackend(configOf("plain")).gate).toEqual({ state: "open" })
    expect(gateRefusal({ state: "closed", reason: "probe unanswered" })).toEqual({ error: "ErrUnreachable", reason: "the reach gate is not proven: probe unanswered" })
  })
})
