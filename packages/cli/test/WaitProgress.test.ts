// Progress of a wait, on Effect's Clock: nothing for a wait under a second; past it, a line redrawn each
// second on a terminal, one line every ten seconds in a pipe; cleared when the wait ends.
import { fc, test } from "@fast-check/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect } from "vitest"
import { showingProgress, waitingLine } from "../src/WaitProgress.ts"
import { recordingIo } from "./CommandLine.ts"

/** Runs a wait of `seconds` under TestClock with progress shown; what the io recorded. */
const waitOf = (seconds: number, terminal: boolean) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const t = recordingIo({}, terminal)
      const statuses: Array<string | undefined> = []
      const io = { ...t.io, status: (line: string | undefined) => void statuses.push(line) }
      const fiber = yield* Effect.forkChild(showingProgress(io, "start")(Effect.sleep(seconds * 1000)))
      yield* TestClock.adjust(seconds * 1000)
      yield* Fiber.join(fiber)
      return { err: t.err, statuses }
    }).pipe(Effect.provide(TestClock.layer()))
  )

describe("showingProgress", () => {
  test.prop([fc.integer({ min: 0, max: 60 })])("on a terminal: one redrawn line per whole second waited, then cleared", async (seconds) => {
    const { err, statuses } = await waitOf(seconds + 0.5, true)
    expect(err).toEqual([])
    expect(statuses).toEqual([...Array.from({ length: seconds }, (_, i) => waitingLine("start", i + 1)), undefined])
  })

  test.prop([fc.integer({ min: 0, max: 60 })])("in a pipe: a line at the first second and every tenth, nothing redrawn", async (seconds) => {
    const { err } = await waitOf(seconds + 0.5, false)
    const expected = Array.from({ length: seconds }, (_, i) => i + 1).filter((s) => s === 1 || s % 10 === 0)
    expect(err).toEqual(expected.map((s) => waitingLine("start", s)))
  })
})
