// A program that imports dispatch and runs Start prints nothing of dispatch's own unless it asked: Effect
// logs at Info by default, and Start's Info lines would otherwise reach every caller's stdout. A caller
// that sets a minimum level or its own loggers gets them.
import { Console, Effect, Layer, Logger, References } from "effect"
import { describe, expect, it } from "vitest"
import { Simulator } from "@dispatch/sim"
import { InFlightMemory } from "../src/InFlight.ts"
import { libraryLog } from "../src/LibraryLog.ts"
import { SimCluster } from "@dispatch/sim/cluster"
import { start } from "../src/Start.ts"
import { backendOf, configOf, requestOf, runtimes } from "./StartFixture.ts"

/** A Console that keeps what the default logger writes. */
const capturing = (lines: Array<string>): Console.Console =>
  Object.assign(Object.create(console) as Console.Console, {
    log: (...parts: ReadonlyArray<unknown>) => void lines.push(parts.map(String).join(" ")),
    error: (...parts: ReadonlyArray<unknown>) => void lines.push(parts.map(String).join(" "))
  })

const startOnSimulator = <A, E, R>(wrap: (e: Effect.Effect<unknown, unknown, never>) => Effect.Effect<A, E, R>) => {
  const simulator = new Simulator({ objects: runtimes() })
  const program = start(backendOf(configOf("plain")), requestOf(1)).pipe(Effect.provide(Layer.merge(SimCluster(simulator, { callMs: 30_000 }), InFlightMemory)))
  return wrap(program)
}

describe("dispatch's log lines", () => {
  it("are not written by a Start whose caller chose nothing about logs", async () => {
    const lines: Array<string> = []
    await Effect.runPromise(startOnSimulator((e) => Effect.provideService(e, Console.Console, capturing(lines))))
    expect(lines).toEqual([])
  })

  it("are not written by a failing Start whose caller chose nothing about logs", async () => {
    const lines: Array<string> = []
    // A request of the wrong shape: the step that decodes it fails, and says so only to a caller who asked.
    const program = start(backendOf(configOf("plain")), { job: 1 }).pipe(Effect.provide(Layer.merge(SimCluster(new Simulator({ objects: runtimes() }), { callMs: 30_000 }), InFlightMemory)))
    const exit = await Effect.runPromiseExit(Effect.provideService(program, Console.Console, capturing(lines)))
    expect(exit._tag).toBe("Failure")
    expect(lines).toEqual([])
  })

  it("are written at Info when the caller sets the minimum level", async () => {
    const lines: Array<string> = []
    await Effect.runPromise(startOnSimulator((e) => e.pipe(Effect.provideService(References.MinimumLogLevel, "Info"), Effect.provideService(Console.Console, capturing(lines)))))
    expect(lines.join("\n")).toMatch(/INFO .*start: TrainJob created with its start gate closed/)
  })

  it("reach a logger the caller provides", async () => {
    const messages: Array<unknown> = []
    const logger = Logger.make((options) => void messages.push(options.message))
    await Effect.runPromise(startOnSimulator((e) => Effect.provide(e, Logger.layer([logger]))))
    expect(messages.flat()).toContain("start: TrainJob created with its start gate closed")
  })

  it("at Warn and above are written whatever the caller chose", async () => {
    const lines: Array<string> = []
    await Effect.runPromise(Effect.provideService(libraryLog("Warn", "the cluster is slow"), Console.Console, capturing(lines)))
    await Effect.runPromise(Effect.provideService(libraryLog("Info", "a routine step"), Console.Console, capturing(lines)))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/WARN .*the cluster is slow/)
  })
})
