// Every lifecycle operation opens one span named for it, carrying the job (and submission) it acts on,
// so a trace shows which job each Find, Stop or transition was about.
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { openBackend } from "../../../src/Backend.ts"
import type { Cluster } from "../../../src/Cluster.ts"
import type { InFlight } from "../../../src/InFlight.ts"
import { find, findMany } from "../../../src/lifecycle/Find.ts"
import { probe } from "../../../src/lifecycle/Probe.ts"
import { stop } from "../../../src/lifecycle/Stop.ts"
import { hold, open, release } from "../../../src/lifecycle/Transitions.ts"
import { jobId } from "../../StartFixture.ts"
import { inProcess, keyOf, started, traced } from "../../lifecycle/LifecycleFixture.ts"

const job = { "dispatch.job": jobId(1), "dispatch.submission": 1 }

describe("lifecycle spans", () => {
  for (const mode of ["plain", "kueue"] as const) {
    it(`${mode}: Find, findMany, Open, Hold, Release and Stop each open their span with the job`, () =>
      inProcess.run({ mode }, (_world, config) =>
        Effect.gen(function* () {
          const backend = openBackend(config)
          yield* started(config, 1)
          const operations = [
            ["dispatch.find", find(backend, keyOf(1)), job],
            ["dispatch.findMany", findMany(backend, [keyOf(1), keyOf(2)]), { "dispatch.jobs": 2 }],
            ["dispatch.open", open(backend, keyOf(1)), job],
            ["dispatch.hold", hold(backend, keyOf(1)), job],
            ["dispatch.release", release(backend, keyOf(1)), job],
            ["dispatch.stop", stop(backend, keyOf(1)), job]
          ] as const
          for (const [name, operation, attributes] of operations) {
            const { spans } = yield* traced(Effect.asVoid(operation as Effect.Effect<unknown, unknown, Cluster | InFlight>))
            expect(spans[0], name).toEqual({ name, attributes })
          }
        })
      ))
  }

  it("the probe opens dispatch.probe around its Start and Stop", () =>
    inProcess.run({ mode: "plain" }, (_world, config) =>
      Effect.gen(function* () {
        const { spans } = yield* traced(probe(config))
        expect(spans[0]).toEqual({ name: "dispatch.probe", attributes: {} })
        expect(spans.map((s) => s.name)).toEqual(expect.arrayContaining(["dispatch.start", "dispatch.stop"]))
      })
    ))
})
