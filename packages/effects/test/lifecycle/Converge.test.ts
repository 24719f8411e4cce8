// converge under scripted write faults: it ends converged or with a typed error, never writes more than
// MAX_WRITES times, and reads after every write.
import { fc, test } from "@fast-check/vitest"
import { Effect, Exit } from "effect"
import { describe, expect } from "vitest"
import { ClusterError, type ClusterErrorReason } from "../../src/ClusterError.ts"
import { converge, MAX_WRITES } from "../../src/lifecycle/Converge.ts"
import { RETRY_POLICY } from "../../src/RetryPolicy.ts"
import { runOnTestClock } from "../StartFixture.ts"

const outcomes = fc.array(fc.constantFrom<"ok" | "lost" | ClusterErrorReason>("ok", "lost", "Conflict", "Unanswered", "Forbidden", "ServerError", "Invalid"), { maxLength: 8 })

/** A fake object holding one value; `lost` is a write the server accepted but another writer undid. */
const run = (script: ReadonlyArray<string>) => {
  let value = 0
  let writes = 0
  let reads = 0
  const program = converge({
    what: "test",
    ref: { namespace: "n", name: "x" },
    read: Effect.sync(() => (reads++, value)),
    decide: (v) =>
      v === 1
        ? { kind: "done" as const }
        : {
            kind: "write" as const,
            write: Effect.suspend(() => {
              const outcome = script[writes++] ?? "ok"
              if (outcome === "ok") value = 1
              if (outcome === "ok" || outcome === "lost") return Effect.void
              // An unanswered write in this model was applied, as the simulator's drop fault does.
              if (outcome === "Unanswered") value = 1
              return Effect.fail(new ClusterError({ reason: outcome as ClusterErrorReason, call: "patch x" }))
            })
          },
    waitMs: 0
  })
  return { program, writes: () => writes, reads: () => reads }
}

/** What converge should do with a script, step by step: the outcome's tag (or "success") and the writes. */
const model = (script: ReadonlyArray<string>): { readonly end: string; readonly writes: number } => {
  let value = 0
  let writes = 0
  let passing = 0
  let lastUnanswered = false
  for (;;) {
    if (value === 1) return { end: "success", writes }
    if (writes >= MAX_WRITES) return { end: lastUnanswered ? "ErrOutcomeUnknown" : "ErrRejected", writes }
    const outcome = script[writes++] ?? "ok"
    lastUnanswered = false
    if (outcome === "ok" || outcome === "Unanswered") value = 1
    if (outcome === "Unanswered") lastUnanswered = true
    if (outcome === "Forbidden") return { end: "ErrReadOnly", writes }
    if (outcome === "Invalid") return { end: "ErrRejected", writes }
    // A passing fault (a 5xx) is written again after a wait, up to the retry policy's tries.
    if (outcome === "ServerError" && ++passing >= RETRY_POLICY.tries) return { end: "ErrUnreachable", writes }
  }
}

describe("converge", () => {
  test.prop([outcomes])("converges, or fails typed, within MAX_WRITES writes, with a read after every write it retries", async (script) => {
    const { program, writes, reads } = run(script)
    const exit = await runOnTestClock(program)
    const expected = model(script)
    expect(writes()).toBeLessThanOrEqual(MAX_WRITES)
    expect(writes()).toBe(expected.writes)
    if (Exit.isSuccess(exit)) {
      expect(expected.end).toBe("success")
      expect(exit.value).toBe(1)
      expect(reads()).toBe(writes() + 1)
      return
    }
    const error = exit.cause.reasons[0]
    if (error?._tag !== "Fail") throw new Error(String(exit.cause))
    expect(error.error._tag).toBe(expected.end)
  })
})
