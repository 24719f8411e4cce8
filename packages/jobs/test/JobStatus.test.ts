import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { JobStatus, StatusChange, transition } from "../src/index.ts"
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
