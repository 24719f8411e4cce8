// Capabilities(ctx, &spec) "checks the runtime, not the rest of the spec": a spec that Start would
// refuse for anything but its runtime still gets its capabilities, and a runtime problem is named.
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { openBackend } from "../../src/Backend.ts"
import { SimCluster } from "@dispatch/sim/cluster"
import { capabilities } from "../../src/lifecycle/Capabilities.ts"
import { configOf, requestOf, runOnTestClock, simOf, writes, type RecordedSim } from "../StartFixture.ts"

const config = configOf("plain")
const run = (recorded: RecordedSim, spec: unknown) =>
  runOnTestClock(capabilities(openBackend(config), spec).pipe(Effect.provide(SimCluster(recorded.face, { callMs: config.timeouts.callMs }))))

const valid = requestOf(1).spec
// Everything Start's tables refuse, with a runtime reference that is fine.
const brokenButForItsRuntime = {
  ...valid,
  command: [],
  env: { DISPATCH_MINE: "x", "1bad": "y", K: "nul\u0000" },
  workDir: "/w\u0000",
  nodes: 0,
  gpusPerNode: -1,
  procsPerNode: -1,
  timeLimit: "-1h",
  checkpoint: "relative/path",
  extensions: { ...valid.extensions, "dispatch/Image": { ref: "" }, "acme/Unknown": {} }
}

describe("Capabilities", () => {
  it("answers for a spec every table would refuse, because it checks the runtime only, and writes nothing", async () => {
    const recorded = simOf()
    const exit = await run(recorded, brokenButForItsRuntime)
    expect(exit).toEqual(Exit.succeed({ runtime: { kind: "ClusterTrainingRuntime", name: "torch-distributed" }, nativeRequeue: false, nativeRestart: false }))
    expect(writes(recorded.calls)).toEqual([])
  })

  it("names the runtime when it is the problem, whatever else is wrong", async () => {
    const recorded = simOf()
    const exit = await run(recorded, { ...brokenButForItsRuntime, extensions: { ...brokenButForItsRuntime.extensions, "kubeflow/RuntimeRef": { kind: "ClusterTrainingRuntime", name: "absent-runtime" } } })
    expect(Exit.isFailure(exit)).toBe(true)
    const failure = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
    const error = failure !== undefined && failure._tag === "Fail" ? (failure.error as { _tag: string; reasons?: ReadonlyArray<string> }) : undefined
    expect(error?._tag).toBe("ErrUnsupported")
    expect(JSON.stringify(error)).toContain("absent-runtime")
  })
})
