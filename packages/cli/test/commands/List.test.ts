// `dispatch list`'s AGE is read against the clock of the cluster it talks to. An embedded simulator's
// clock starts on its own date and may run many times faster than real time (the demo's): against this
// machine's clock its jobs would be months old, or never age.
import { readFileSync } from "node:fs"
import { Effect, Layer, Result } from "effect"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { InFlightMemory, factory, start } from "@dispatch/effects"
import { SimCluster } from "@dispatch/sim/cluster"
import { decodeConfig } from "@dispatch/render"
import { Simulator } from "@dispatch/sim"
import { listJobs, listLines } from "../../src/commands/List.ts"
import { withFastClock } from "../../src/FastClock.ts"
import { example } from "../DispatchBinary.ts"

const decoded = <A, E>(result: Result.Result<A, E>): A => {
  if (Result.isFailure(result)) throw new Error(String(result.failure))
  return result.success
}

const rawConfig = JSON.parse(readFileSync(example("config.json"), "utf8")) as unknown
const config = decoded(decodeConfig(rawConfig))
const request = JSON.parse(readFileSync(example("request.json"), "utf8")) as unknown
const runtime = parse(readFileSync(example("runtime.yaml"), "utf8")) as Record<string, unknown>

/** Starts the example on a fresh simulator (its clock on its own start date), waits `waitMs` by the
 * Clock, and lists: the AGE column of the one job. */
const ageAfter = (waitMs: number, speed: number): Promise<string> => {
  const simulator = new Simulator({ objects: [{ apiVersion: "v1", kind: "Namespace", metadata: { name: config.namespace } }, runtime as never] })
  const program = Effect.gen(function* () {
    yield* start(yield* factory(rawConfig), request)
    yield* Effect.sleep(waitMs)
    const { jobs, nowMs } = yield* listJobs(config, undefined)
    return listLines(jobs, "text", nowMs, false)[0]?.split(/\s+/)[3] ?? ""
  })
  const provided = Effect.provide(program, Layer.merge(SimCluster(simulator, { callMs: 30_000 }), InFlightMemory))
  return Effect.runPromise(speed === 1 ? provided : withFastClock(speed)(provided))
}

describe("dispatch list's AGE on an embedded simulator", () => {
  it("is the job's age by the simulator's clock, not against this machine's date", async () => {
    expect(await ageAfter(0, 1)).toMatch(/^\d{1,2}s$/)
  })

  it("follows a fast clock: 3 minutes of simulated time make a job of 3m and some seconds, printed as kubectl does", async () => {
    // The start itself takes simulated seconds too, which kubectl shows under ten minutes.
    expect(await ageAfter(180_000, 1000)).toMatch(/^3m(\d{1,2}s)?$/)
  })
})
