// converge under scripted write faults: it ends converged or with a typed error, never writes more than
// MAX_WRITES times, and reads after every write.
import { fc, test } from "@fast-check/vitest"
import { Effect, Exit } from "effect"
import { describe, expect } from "vitest"
import { ClusterError, type ClusterErrorReason } from "../../src/ClusterError.ts"
import { converge, MAX_WRITES } from "../../src/lifecycle/Converge.ts"

const outcomes = fc.array(fc.constantFrom<"ok" | "lost" | ClusterErrorReason>("ok", "lost", "Conflict", "Unanswered", "Forbidden", "ServerError", "Invalid"), { maxLength: 6 })

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
  return { exit: Effect.runSyncExit(program), writes: () => writes, reads: () => reads }
}

describe("converge", () => {
  test.prop([outcomes])("converges, or fails typed, within MAX_WRITES writes, with a read after every write it retries", (script) => {
    const { exit, writes, reads } = run(script)
    expect(writes()).toBeLessThanOrEqual(MAX_WRITES)
    const firstDefinite = script.findIndex((o) => o !== "ok" && o !== "lost" && o !== "Conflict" && o !== "Unanswered")
    const firstApplied = script.findIndex((o) => o === "ok" || o === "Unanswered")
    if (Exit.isSuccess(exit)) {
      expect(exit.value).toBe(1)
      expect(reads()).toBe(writes() + 1)
      return
    }
    const error = exit.cause.reasons[0]
    if (error?._tag !== "Fail") throw new Error(String(exit.cause))
    if (firstDefinite !== -1 && (firstApplied === -1 || firstDefinite < firstApplied)) {
      // A definite failure before anything stuck ends it at once, mapped like any write.
      expect(writes()).toBe(firstDefinite + 1)
      expect(["ErrReadOnly", "ErrUnreachable", "ErrRejected"]).toContain(error.error._tag)
    } else {
      // Nothing stuck in MAX_WRITES writes: rejected, naming the attempts.
      expect(writes()).toBe(MAX_WRITES)
      expect(error.error._tag).toBe("ErrRejected")
    }
  })
})
