import { fc, test } from "@fast-check/vitest"
import { Clock, Duration, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect } from "vitest"
import { fastClock } from "../src/FastClock.ts"

const run = <A>(effect: Effect.Effect<A>) => Effect.runPromise(Effect.provide(effect, TestClock.layer()))

describe("fastClock", () => {
  test.prop([fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 0, max: 100_000 })])("time since creation runs `speed` times faster", (speed, elapsed) =>
    run(
      Effect.gen(function* () {
        const base = yield* Clock.clockWith(Effect.succeed)
        const fast = fastClock(base, speed)
        const before = yield* fast.currentTimeMillis
        yield* TestClock.adjust(elapsed)
        expect((yield* fast.currentTimeMillis) - before).toBe(elapsed * speed)
      })
    )
  )

  test.prop([fc.integer({ min: 2, max: 50 }), fc.integer({ min: 1, max: 1000 })])("a sleep ends after 1/speed of its duration on the base clock", (speed, units) =>
    run(
      Effect.gen(function* () {
        const base = yield* Clock.clockWith(Effect.succeed)
        const fast = fastClock(base, speed)
        const fiber = yield* Effect.forkChild(fast.sleep(Duration.millis(units * speed)))
        yield* TestClock.adjust(units - 1)
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust(1)
        yield* Fiber.join(fiber)
      })
    )
  )
})
