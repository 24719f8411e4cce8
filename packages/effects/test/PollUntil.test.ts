// pollUntil on TestClock: how many reads it makes, when it stops, and what it returns.
import { fc, test } from "@fast-check/vitest"
import { Clock, Effect, Exit } from "effect"
import { expect } from "vitest"
import { POLL_INTERVAL_MS, pollUntil } from "../src/PollUntil.ts"
import { runOnTestClock } from "./StartFixture.ts"

const run = async (doneAfter: number, waitMs: number) => {
  let reads = 0
  const exit = await runOnTestClock(
    pollUntil(Effect.sync(() => ++reads), (n) => n >= doneAfter, waitMs),
    waitMs + 10_000
  )
  if (!Exit.isSuccess(exit)) throw new Error("pollUntil failed")
  return { polled: exit.value, reads }
}

test.prop([fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 10_000 })], { numRuns: 40 })(
  "reads once, then once a second until done or the deadline; done says which",
  async (doneAfter, waitMs) => {
    const { polled, reads } = await run(doneAfter, waitMs)
    // The reads that fit: one at the start and one per interval (the last one cut to end on the deadline).
    const fit = 1 + Math.ceil(waitMs / POLL_INTERVAL_MS)
    expect(reads).toBe(Math.min(doneAfter, fit))
    expect(polled).toEqual({ value: reads, done: doneAfter <= fit })
  }
)

test.prop([fc.integer({ min: 1, max: 10_000 })], { numRuns: 20 })("reads last on the deadline, never after it", async (waitMs) => {
  const times: Array<number> = []
  const exit = await runOnTestClock(
    pollUntil(Effect.map(Clock.currentTimeMillis, (t) => times.push(t)), () => false, waitMs),
    waitMs + 10_000
  )
  expect(Exit.isSuccess(exit)).toBe(true)
  expect(times.at(-1)! - times[0]!).toBe(waitMs)
})

test.prop([fc.integer({ min: 0, max: 4000 }), fc.integer({ min: 5000, max: 20_000 })], { numRuns: 20 })(
  "after a read that asks for a wait, reads again no sooner than it; a wait past the deadline ends the poll",
  async (askMs, waitMs) => {
    const times: Array<number> = []
    const read = Effect.map(Clock.currentTimeMillis, (now) => (times.push(now), times.length))
    const exit = await runOnTestClock(pollUntil(read, (n) => n >= 3, waitMs, () => askMs), waitMs + 10_000)
    expect(Exit.isSuccess(exit)).toBe(true)
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(Math.max(POLL_INTERVAL_MS, askMs))
    const past = await runOnTestClock(pollUntil(read, () => false, 1000, () => 1001), 20_000)
    expect(Exit.isSuccess(past) && past.value.done).toBe(false)
  }
)

test("a wait that reaches exactly the deadline is honoured with one more read there; one past it ends the poll at once", async () => {
  const count = async (waitMs: number, askMs: number) => {
    const times: Array<number> = []
    const read = Effect.map(Clock.currentTimeMillis, (now) => (times.push(now), times.length))
    const exit = await runOnTestClock(pollUntil(read, () => false, waitMs, () => askMs), 20_000)
    expect(Exit.isSuccess(exit) && exit.value.done).toBe(false)
    return times.map((t) => t - times[0]!)
  }
  expect(await count(3000, 3000)).toEqual([0, 3000])
  expect(await count(3000, 3001)).toEqual([0])
  expect(await count(3000, 1500)).toEqual([0, 1500, 3000])
})
