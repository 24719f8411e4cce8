import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { FindState, JobStatus, StatusChange, statusForFind, stepsToward, transition } from "../src/index.ts"
import { failureOf, successOf } from "./Fixtures.ts"

// The transitions as facts.md lists them, written out independently of the module's table.
const listed = new Set([
  "queued->started",
  "queued->deferred",
  "queued->reset",
  "started->finished",
  "started->failed",
  "started->reset",
  "deferred->started",
  "deferred->reset",
  "failed->reset",
  "finished->reset"
])

describe("transition", () => {
  const pairs = JobStatus.literals.flatMap((from) => StatusChange.literals.map((to) => [from, to] as const))

  it("covers all 30 pairs of state and change", () => {
    expect(pairs.length).toBe(30)
  })

  it.each(pairs)("%s -> %s is allowed exactly when listed", (from, to) => {
    const result = transition(from, to)
    expect(Result.isSuccess(result)).toBe(listed.has(`${from}->${to}`))
    if (Result.isSuccess(result)) expect(result.success).toBe(to === "reset" ? "queued" : to)
    else {
      expect(result.failure._tag).toBe("InvalidTransition")
      expect(result.failure.status).toBe(400)
    }
  })

  it("says what is allowed when it refuses", () => {
    expect(failureOf(transition("finished", "started")).message).toBe("a finished job cannot become started; allowed: reset")
    expect(failureOf(transition("queued", "queued")).message).toBe("a queued job cannot become queued; allowed: started, deferred, reset")
  })
})

describe("statusForFind / stepsToward", () => {
  it("maps what Find reports onto job states", () => {
    expect(FindState.literals.map((s) => [s, statusForFind(s)])).toEqual([
      ["Held", "deferred"],
      ["Queued", "queued"],
      ["InFlight", "queued"],
      ["Running", "started"],
      ["Succeeded", "finished"],
      ["Failed", "failed"]
    ])
  })

  test.prop([fc.constantFrom(...JobStatus.literals), fc.constantFrom(...FindState.literals)])(
    "a path is a chain of allowed changes ending where Find says, never through reset",
    (from, state) => {
      const result = stepsToward(from, state)
      if (Result.isFailure(result)) return
      let at: JobStatus = from
      for (const step of result.success) {
        expect(step).not.toBe("reset")
        at = successOf(transition(at, step))
      }
      expect(at).toBe(statusForFind(state))
    }
  )

  it.each([
    ["queued", "Succeeded", ["started", "finished"]],
    ["queued", "Held", ["deferred"]],
    ["deferred", "Failed", ["started", "failed"]],
    ["started", "Running", []],
    ["queued", "InFlight", []]
  ] as const)("from %s, Find %s takes %j", (from, state, path) => {
    expect(successOf(stepsToward(from, state))).toEqual(path)
  })

  it.each([
    ["finished", "Running"],
    ["started", "Queued"],
    ["deferred", "Queued"],
    ["failed", "Succeeded"]
  ] as const)("from %s, Find %s cannot be reached without a reset", (from, state) => {
    expect(failureOf(stepsToward(from, state))._tag).toBe("InvalidTransition")
  })
})
