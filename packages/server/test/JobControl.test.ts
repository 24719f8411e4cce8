// A job control as the endpoints run it: the dispatcher's own (Effects) as given, and one given as Promise code
// crossed once, its answer and its rejection kept as they were.
import { Effect, Exit } from "effect"
import { describe, expect, test } from "vitest"
import type { ClusterRun } from "../src/dispatch/ClusterRuntime.ts"
import { controlEffects, type JobControlEffects } from "../src/dispatch/JobControl.ts"

const ok: ClusterRun<unknown> = { kind: "ok", value: undefined }

describe("controlEffects", () => {
  test("a job control of Effects is taken as it is", () => {
    const given: JobControlEffects = { transitionEffect: () => Effect.succeed(ok), wake: () => undefined }
    expect(controlEffects(given)).toBe(given)
  })

  test("a job control of Promise code answers what its transition resolved to, for the call it was asked", async () => {
    const calls: Array<readonly [number, string, string]> = []
    let wakes = 0
    const control = controlEffects({
      transition: async (queue, key, which) => {
        calls.push([queue, key, which])
        return { kind: "abandoned", reason: "closing" }
      },
      wake: () => void wakes++
    })
    expect(await Effect.runPromise(control.transitionEffect(3, "job-a", "release"))).toEqual({ kind: "abandoned", reason: "closing" })
    expect(calls).toEqual([[3, "job-a", "release"]])
    control.wake()
    expect(wakes).toBe(1)
  })

  test("a job control of Promise code that rejects fails with what it threw", async () => {
    const thrown = new Error("the queue's backend could not be read")
    const control = controlEffects({ transition: () => Promise.reject(thrown), wake: () => undefined })
    const exit = await Effect.runPromiseExit(control.transitionEffect(1, "job-b", "hold"))
    expect(exit).toEqual(Exit.fail(thrown))
  })
})
