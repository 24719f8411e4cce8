// Start's spans cost more CPU than its API calls: they are made for a tracer the caller installed, and not
// for Effect's native tracer, which keeps them for no one. What a Cluster call sees as its parent span
// tells which it did.
import { Effect, Layer, Option, Tracer } from "effect"
import { describe, expect, it } from "vitest"
import { Cluster } from "../src/Cluster.ts"
import { InFlight, makeInFlight } from "../src/InFlight.ts"
import { SimCluster } from "@dispatch/sim/cluster"
import { start } from "../src/Start.ts"
import { backendOf, configOf, requestOf, runOnTestClock, simOf } from "./StartFixture.ts"

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
