// Capabilities(ctx, &spec) "checks the runtime, not the rest of the spec": a spec that Start would
// refuse for anything but its runtime still gets its capabilities, and a runtime problem is named.
import { Effect, Exit, Tracer } from "effect"
import { describe, expect, it } from "vitest"
import { openBackend } from "../../src/Backend.ts"
import { SimCluster } from "@dispatch/sim/cluster"
import { capabilities } from "../../src/lifecycle/Capabilities.ts"
import { configOf, requestOf, runOnTestClock, simOf, writes, type RecordedSim, backendOf, torchRuntime } from "../StartFixture.ts"
import { factory } from "../../src/lifecycle/Factory.ts"
import { inProcess, lifecycleConfig, writesOf } from "./LifecycleFixture.ts"

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

// Capabilities and Factory beyond the scenarios: a runtime that breaks the runtime rules is refused by
// Capabilities as Start would refuse it, the adapter declares no native requeue or restart, a closed
// backend answers nothing, and Factory names every problem of a bad config before any call.
describe("Capabilities and Factory at the edges", () => {
  // A runtime whose trainer container sets a variable of dispatch's own: the runtime rules refuse it.
  const brokenRuntime = (() => {
    const runtime = torchRuntime("broken-torch") as { spec: { template: { spec: { replicatedJobs: Array<{ template: { spec: { template: { spec: { containers: Array<Record<string, unknown>> } } } } }> } } } }
    const container = runtime.spec.template.spec.replicatedJobs[0]!.template.spec.template.spec.containers[0]!
    container["env"] = [{ name: "DISPATCH_WORKDIR", value: "/tmp" }]
    return runtime
  })()

  describe("Capabilities", () => {
    it("refuses a runtime that breaks the runtime rules with ErrUnsupported naming the rule, writing nothing", () =>
      inProcess.run({ mode: "plain", sim: { objects: [brokenRuntime as never] } }, (world, base) =>
        Effect.gen(function* () {
          const config = { ...base, runtimes: [...base.runtimes, { kind: "ClusterTrainingRuntime" as const, name: "broken-torch" }] }
          const error = yield* Effect.flip(capabilities(openBackend(config), requestOf(1, { runtime: "broken-torch" }).spec))
          expect(error._tag).toBe("ErrUnsupported")
          expect(error.reasons.join(" ")).toContain("DISPATCH_WORKDIR")
          expect(writesOf(world.calls)).toEqual([])
        })
      ))

    it("declares neither native requeue nor native restart, on every backend that may read", () =>
      inProcess.run({ mode: "kueue" }, (_world, config) =>
        Effect.gen(function* () {
          for (const gate of [{ state: "open" as const }, { state: "read-only" as const, reason: "403" }, { state: "observe-only" as const, reason: "no Kueue" }]) {
            const answer = yield* capabilities(backendOf(config, gate), requestOf(1).spec)
            expect(answer).toEqual({ runtime: { kind: "ClusterTrainingRuntime", name: "torch-distributed" }, nativeRequeue: false, nativeRestart: false })
          }
        })
      ))

    it("is traced as one span, dispatch.capabilities, so a slow runtime read shows up in traces", () =>
      inProcess.run({ mode: "plain" }, (_world, config) =>
        Effect.gen(function* () {
          const names: Array<string> = []
          const tracer = Tracer.make({ span: (options) => (names.push(options.name), new Tracer.NativeSpan(options)) })
          yield* capabilities(openBackend(config), requestOf(1).spec).pipe(Effect.withTracer(tracer))
          expect(names).toContain("dispatch.capabilities")
        })
      ))

    it("a closed backend answers ErrUnreachable naming why, without a call", () =>
      inProcess.run({ mode: "plain" }, (world, config) =>
        Effect.gen(function* () {
          const error = yield* Effect.flip(capabilities(backendOf(config, { state: "closed", reason: "the API server is down" }), requestOf(1).spec))
          expect(error._tag).toBe("ErrUnreachable")
          expect(error.reasons.join(" ")).toContain("the API server is down")
          expect(world.calls).toEqual([])
        })
      ))

    it("a spec without the wire shape is ErrInvalid naming the spec's own fields", () =>
      inProcess.run({ mode: "plain" }, (world, config) =>
        Effect.gen(function* () {
          const error = yield* Effect.flip(capabilities(openBackend(config), { command: "not a list" }))
          expect(error._tag).toBe("ErrInvalid")
          expect(error.reasons.join(" ")).toContain("spec.command")
          expect(world.calls).toEqual([])
        })
      ))
  })

  describe("Factory", () => {
    it("names every problem of a bad config, and makes no call", () =>
      inProcess.run({ mode: "plain" }, (world) =>
        Effect.gen(function* () {
          const error = yield* Effect.flip(factory({ namespace: "Not A Namespace", mode: "sideways", runtimes: [] }))
          expect(error._tag).toBe("ErrInvalid")
          expect(error.reasons.length).toBeGreaterThanOrEqual(2)
          const text = error.reasons.join("\n")
          expect(text).toContain("namespace")
          expect(text).toContain("mode")
          expect(world.calls).toEqual([])
        })
      ))

    it("opens a backend for a good config, with the decoded config and the probe's gate", () =>
      inProcess.run({ mode: "plain" }, (_world, config) =>
        Effect.gen(function* () {
          const input = { namespace: config.namespace, mode: "plain", runtimes: config.runtimes, timeouts: { call: 5, workload: 30, callBound: 60 } }
          const backend = yield* factory(input)
          expect(backend.gate).toEqual({ state: "open" })
          expect(backend.config).toEqual(lifecycleConfig("plain", inProcess.timing))
        })
      ))
  })
})
