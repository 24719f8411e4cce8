// converge under scripted write faults: it ends converged or with a typed error, never writes more than
// MAX_WRITES times, and reads after every write.
import { fc, test } from "@fast-check/vitest"
import { Effect, Exit, Clock, Logger, References } from "effect"
import { describe, expect, it } from "vitest"
import { ClusterError, type ClusterErrorReason } from "../../src/ClusterError.ts"
import { converge, MAX_WRITES, type Decision } from "../../src/lifecycle/Converge.ts"
import { RETRY_POLICY, backoffCeiling } from "../../src/RetryPolicy.ts"
import { runOnTestClock, errorOf } from "../StartFixture.ts"

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

// converge's promises that Converge.test.ts's write-fault property does not reach: how long a wait
// lasts and how often it reads, a refusal, the error after MAX_WRITES unconfirmed writes (which tells a
// supervisor whether to Find before retrying), and each definite failure's class and reference.
describe("converge's waits, refusals and unconfirmed writes", () => {
  const ref = { namespace: "n", name: "dj-x-s1" }

  /** A converge whose every decision comes from `decide`, counting reads and when they happened. */
  const counted = (decide: (read: number) => Decision<never>, waitMs: number) => {
    const readsAt: Array<number> = []
    const program = converge({
      what: "open n/dj-x-s1",
      ref,
      read: Effect.map(Clock.currentTimeMillis, (now) => (readsAt.push(now), readsAt.length)),
      decide,
      waitMs
    })
    return { run: () => runOnTestClock(program), readsAt }
  }

  const failingWrite = (reason: ClusterErrorReason, call = "patch workloads n/w") => Effect.fail(new ClusterError({ reason, call }))

  describe("converge waits", () => {
    it("reads once a second while it must wait, and succeeds on the read that shows the wanted state", async () => {
      const { run, readsAt } = counted((n) => (n < 4 ? { kind: "wait", reason: "Kueue has not made the Workload" } : { kind: "done" }), 30_000)
      const exit = await run()
      expect(exit).toEqual(Exit.succeed(4))
      expect(readsAt.map((t) => t - readsAt[0]!)).toEqual([0, 1000, 2000, 3000])
    })

    it("gives up exactly at waitMs, with a last read at the deadline, naming how long it waited and why", async () => {
      const { run, readsAt } = counted(() => ({ kind: "wait", reason: "Kueue has not made the Workload" }), 2500)
      const error = errorOf(await run())
      expect(error._tag).toBe("ErrRejected")
      expect(error.reasons).toEqual(["open n/dj-x-s1: still waiting after 2500 ms: Kueue has not made the Workload"])
      expect(error).toMatchObject({ ref })
      // The last sleep is cut to the deadline, not a whole interval past it.
      expect(readsAt.map((t) => t - readsAt[0]!)).toEqual([0, 1000, 2000, 2500])
    })

    it("with no time to wait (waitMs 0) refuses on the first read instead of sleeping", async () => {
      const { run, readsAt } = counted(() => ({ kind: "wait", reason: "not yet" }), 0)
      expect(errorOf(await run()).reasons).toEqual(["open n/dj-x-s1: still waiting after 0 ms: not yet"])
      expect(readsAt).toHaveLength(1)
    })
  })

  describe("converge refuses", () => {
    it("a refusal is ErrRejected naming what and why, on the object, without writing", async () => {
      const { run, readsAt } = counted(() => ({ kind: "refuse", reason: "the TrainJob n/dj-x-s1 has finished" }), 30_000)
      const error = errorOf(await run())
      expect(error._tag).toBe("ErrRejected")
      expect(error.reasons).toEqual(["open n/dj-x-s1: the TrainJob n/dj-x-s1 has finished"])
      expect(error).toMatchObject({ ref })
      expect(readsAt).toHaveLength(1)
    })
  })

  /** A converge over an object that never shows the change; each write's outcome comes from `script`. */
  const neverHolds = (script: ReadonlyArray<"ok" | ClusterErrorReason>) => {
    let writes = 0
    const program = converge({
      what: "hold n/dj-x-s1",
      ref,
      read: Effect.succeed("unchanged"),
      decide: () => ({
        kind: "write",
        write: Effect.suspend(() => {
          const outcome = script[writes] ?? "ok"
          writes++
          return outcome === "ok" ? Effect.void : failingWrite(outcome, `patch #${writes}`)
        })
      }),
      waitMs: 0
    })
    return { exit: Effect.runSyncExit(Effect.provideService(program, References.MinimumLogLevel, "Warn")), writes: () => writes }
  }

  describe("converge after MAX_WRITES writes that did not hold", () => {
    it("is ErrOutcomeUnknown when the last write went unanswered: it may still land, so Find before retrying", () => {
      const { exit, writes } = neverHolds(Array(MAX_WRITES).fill("Unanswered"))
      const error = errorOf(exit)
      expect(writes()).toBe(MAX_WRITES)
      expect(error._tag).toBe("ErrOutcomeUnknown")
      expect(error).toMatchObject({ ref })
      // The first reason says what did not hold; then every unconfirmed write, in order.
      expect(error.reasons).toEqual([
        `hold n/dj-x-s1: the change did not hold after ${MAX_WRITES} writes`,
        ...Array.from({ length: MAX_WRITES }, (_, i) => `patch #${i + 1}: Unanswered`)
      ])
    })

    it("is ErrRejected when the last write was answered, even after earlier unanswered ones", () => {
      expect(errorOf(neverHolds(["Unanswered", "Unanswered", "Unanswered", "Unanswered", "Conflict"]).exit)._tag).toBe("ErrRejected")
      // An answered write clears the doubt an earlier unanswered one left.
      expect(errorOf(neverHolds(["Unanswered", "Unanswered", "Unanswered", "Unanswered", "ok"]).exit)._tag).toBe("ErrRejected")
      const conflicts = errorOf(neverHolds(Array(MAX_WRITES).fill("Conflict")).exit)
      expect(conflicts._tag).toBe("ErrRejected")
      // The last failed write's cause: a conflict passes (a fresh read may settle it).
      expect(conflicts).toMatchObject({ cause: { kind: "Passing", reason: "Conflict" } })
      // A last write that went through (and did not hold) leaves no cause.
      expect("cause" in errorOf(neverHolds(["Conflict", "Conflict", "Conflict", "Conflict", "ok"]).exit)).toBe(false)
      expect(conflicts.reasons.slice(1)).toEqual(Array.from({ length: MAX_WRITES }, (_, i) => `patch #${i + 1}: Conflict`))
    })

    it("is ErrOutcomeUnknown when only the last of the writes went unanswered", () => {
      expect(errorOf(neverHolds(["Conflict", "ok", "Conflict", "ok", "Unanswered"]).exit)._tag).toBe("ErrOutcomeUnknown")
    })
  })

  describe("converge on a definite write failure", () => {
    it("a passing fault (5xx, refused connection) is written again after the retry policy's wait, then classed as Start classes it, with its cause", async () => {
      for (const reason of ["ServerError", "Unreachable"] as const) {
        let writes = 0
        const writtenAt: Array<number> = []
        const program = converge({
          what: "hold n/dj-x-s1",
          ref,
          read: Effect.succeed("unchanged"),
          decide: () => ({ kind: "write", write: Effect.suspend(() => (writes++, Effect.flatMap(Clock.currentTimeMillis, (now) => (writtenAt.push(now), failingWrite(reason, `patch #${writes}`))))) }),
          waitMs: 0
        })
        const error = errorOf(await runOnTestClock(program))
        expect(writes, reason).toBe(RETRY_POLICY.tries)
        expect(error._tag, reason).toBe("ErrUnreachable")
        expect(error.reasons, reason).toEqual([`patch #${RETRY_POLICY.tries}: ${reason}`])
        expect(error, reason).toMatchObject({ cause: { kind: "Passing", reason } })
        for (let i = 1; i < writtenAt.length; i++) expect(writtenAt[i]! - writtenAt[i - 1]!).toBeLessThanOrEqual(backoffCeiling(RETRY_POLICY, i - 1))
      }
    })

    it("a Retry-After longer than the policy allows ends it at once, with the wait in its cause; one of exactly maxWaitMs is waited out", async () => {
      const busy = (retryAfterMs: number) => {
        let writes = 0
        const writtenAt: Array<number> = []
        const program = converge({
          what: "hold n/dj-x-s1",
          ref,
          read: Effect.succeed("unchanged"),
          decide: () => ({
            kind: "write",
            write: Effect.flatMap(Clock.currentTimeMillis, (now) => (writtenAt.push(now), ++writes === 1) ? Effect.fail(new ClusterError({ reason: "ServerError", call: "patch #1", status: { code: 429, reason: "TooManyRequests", message: "", causes: [] }, retryAfterMs })) : Effect.fail(new ClusterError({ reason: "Invalid", call: `patch #${writes}` })))
          }),
          waitMs: 0
        })
        return { program, writes: () => writes, writtenAt }
      }
      const tooLong = busy(RETRY_POLICY.maxWaitMs + 1)
      const error = errorOf(await runOnTestClock(tooLong.program))
      expect(tooLong.writes()).toBe(1)
      expect(error).toMatchObject({ _tag: "ErrUnreachable", cause: { kind: "Passing", code: 429, retryAfterMs: RETRY_POLICY.maxWaitMs + 1 } })
      const longest = busy(RETRY_POLICY.maxWaitMs)
      expect(errorOf(await runOnTestClock(longest.program))._tag).toBe("ErrRejected")
      expect(longest.writes()).toBe(2)
      expect(longest.writtenAt[1]! - longest.writtenAt[0]!).toBeGreaterThanOrEqual(RETRY_POLICY.maxWaitMs)
    })

    it("a passing fault once is written again, and converges", async () => {
      let value = 0
      let writes = 0
      const program = converge({
        what: "hold n/dj-x-s1",
        ref,
        read: Effect.sync(() => value),
        decide: (v) => (v === 1 ? { kind: "done" } : { kind: "write", write: Effect.suspend(() => (++writes === 1 ? failingWrite("ServerError") : Effect.sync(() => void (value = 1)))) }),
        waitMs: 0
      })
      expect(await runOnTestClock(program)).toEqual(Exit.succeed(1))
      expect(writes).toBe(2)
    })

    it("a refusal stops at once, classed as Start classes a failed write, with the object's reference where it names one", () => {
      const cases: ReadonlyArray<readonly [ClusterErrorReason, string]> = [
        ["Forbidden", "ErrReadOnly"],
        ["Invalid", "ErrRejected"],
        ["NotFound", "ErrRejected"]
      ]
      for (const [reason, tag] of cases) {
        const { exit, writes } = neverHolds([reason])
        const error = errorOf(exit)
        expect(writes(), reason).toBe(1)
        expect(error._tag, reason).toBe(tag)
        expect(error.reasons, reason).toEqual([`patch #1: ${reason}`])
        if (tag === "ErrRejected") expect(error, reason).toMatchObject({ ref })
      }
    })
  })

  describe("converge's log", () => {
    it("says, for the operator, each write it made and each one not confirmed, with the cluster's reason", () => {
      const logs: Array<{ level: string; message: unknown; annotations: Readonly<Record<string, unknown>> }> = []
      const logger = Logger.make((options) => void logs.push({ level: options.logLevel, message: options.message, annotations: options.fiber.getRef(References.CurrentLogAnnotations) }))
      let value = 0
      const outcomes: Array<"Conflict" | "ok"> = ["Conflict", "ok"]
      const program = converge({
        what: "hold n/dj-x-s1",
        ref,
        read: Effect.sync(() => value),
        decide: (v) => (v === 1 ? { kind: "done" } : { kind: "write", write: Effect.suspend(() => (outcomes.shift() === "ok" ? Effect.sync(() => void (value = 1)) : failingWrite("Conflict"))) }),
        waitMs: 0
      })
      Effect.runSync(program.pipe(Effect.provideService(References.MinimumLogLevel, "All"), Effect.provide(Logger.layer([logger]))))
      expect(logs.map((l) => [l.level, l.message])).toEqual([
        ["Info", ["hold n/dj-x-s1: write not confirmed, reading again"]],
        ["Debug", ["hold n/dj-x-s1: wrote a change"]]
      ])
      expect(logs[0]?.annotations).toMatchObject({ reason: "Conflict" })
    })
  })
})
