// Open, Hold, Release, Stop, Find and findMany under passing faults: each call that meets a 503, a 429 or
// no answer is tried again in place (RetryPolicy) and the operation succeeds; a fault that outlasts the
// tries ends typed, with its cause. Checked against what the simulator stores.
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { FaultRule } from "@dispatch/sim"
import { find, findMany } from "../../../src/lifecycle/Find.ts"
import { hold, open, release } from "../../../src/lifecycle/Transitions.ts"
import { stop } from "../../../src/lifecycle/Stop.ts"
import { RETRY_POLICY } from "../../../src/RetryPolicy.ts"
import { isPassing } from "../../../src/StartErrors.ts"
import { trainJobNameOf } from "../../StartFixture.ts"
import { inProcess, keyOf, openOf, started, storedNamed, type World } from "../../lifecycle/LifecycleFixture.ts"

const name = trainJobNameOf(1)
const suspendOf = (world: World): unknown => (storedNamed(world, "trainjobs", name)[0]?.["spec"] as Record<string, unknown> | undefined)?.["suspend"]
const count = (world: World, verb: string, resource: string) => world.calls.filter((c) => c.request.verb === verb && c.request.resource === resource).length

/** Job 1 started; then `faults` apply, and the calls are counted afresh. */
const afterStart = (faults: ReadonlyArray<FaultRule>, program: (world: World, config: Parameters<typeof openOf>[0]) => Effect.Effect<void, unknown, never>, mode: "plain" | "kueue" = "plain") =>
  inProcess.run({ mode }, (world, config) =>
    Effect.gen(function* () {
      yield* started(config, 1)
      // Only the calls of the operation under test are counted.
      world.calls.length = 0
      world.sim.setFaults(faults)
      yield* program(world, config) as Effect.Effect<void, unknown, never>
    })
  )

describe("the lifecycle retries a passing fault in place", () => {
  it.each([
    ["a 503", { type: "status", code: 503 }],
    ["a 429 with Retry-After", { type: "status", code: 429, retryAfterSeconds: 2 }],
    ["a refused connection", { type: "refuse" }]
  ] as const)("Open's patch meeting %s once is tried again: the TrainJob runs", (_, action) =>
    afterStart([{ verb: "patch", resource: "trainjobs", nth: 1, action }], (world, config) =>
      Effect.gen(function* () {
        yield* open(openOf(config), keyOf(1))
        expect(suspendOf(world)).toBe(false)
        expect(count(world, "patch", "trainjobs")).toBe(2)
      }) as never
    ))

  it("Hold and Release meeting a 503 once each are tried again", () =>
    afterStart([{ verb: "patch", resource: "trainjobs", action: { type: "status", code: 503 }, nth: 1 }, { verb: "patch", resource: "trainjobs", action: { type: "status", code: 503 }, nth: 3 }], (world, config) =>
      Effect.gen(function* () {
        yield* release(openOf(config), keyOf(1))
        expect(suspendOf(world)).toBe(false)
        yield* hold(openOf(config), keyOf(1))
        expect(suspendOf(world)).toBe(true)
      }) as never
    ))

  it("Open's read meeting a 503 once is tried again", () =>
    afterStart([{ verb: "get", resource: "trainjobs", nth: 1, action: { type: "status", code: 503 } }], (world, config) =>
      Effect.gen(function* () {
        yield* open(openOf(config), keyOf(1))
        expect(suspendOf(world)).toBe(false)
      }) as never
    ))

  it("Open meeting a 503 on every try fails ErrUnreachable with the passing cause, the job still held", () =>
    afterStart([{ verb: "patch", resource: "trainjobs", action: { type: "status", code: 503 } }], (world, config) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(open(openOf(config), keyOf(1)))
        expect(error._tag).toBe("ErrUnreachable")
        expect(error).toMatchObject({ cause: { kind: "Passing", code: 503 } })
        expect(isPassing(error)).toBe(true)
        expect(count(world, "patch", "trainjobs")).toBe(RETRY_POLICY.tries)
        expect(suspendOf(world)).toBe(true)
      }) as never
    ))

  it("Stop's delete meeting a 503 once is tried again: nothing of the job is left", () =>
    afterStart([{ verb: "delete", resource: "trainjobs", nth: 1, action: { type: "status", code: 503 } }], (world, config) =>
      Effect.gen(function* () {
        const result = yield* stop(openOf(config), keyOf(1), { waitMs: 5_000 })
        expect(result.gone).toBe(true)
        expect(storedNamed(world, "trainjobs", name)).toEqual([])
        expect(storedNamed(world, "trainingruntimes", name)).toEqual([])
      }) as never
    ))

  it("Stop's first read, unanswered once, is tried again: nothing of the job is left", () =>
    afterStart([{ verb: "get", resource: "trainjobs", nth: 1, action: { type: "drop" } }], (world, config) =>
      Effect.gen(function* () {
        const result = yield* stop(openOf(config), keyOf(1), { waitMs: 5_000 })
        expect(result.gone).toBe(true)
        expect(storedNamed(world, "trainjobs", name)).toEqual([])
      }) as never
    ))

  it("Stop of an ownerless copy (the owner patch never landed) meeting a 503 on its delete still removes it", () =>
    inProcess.run({ mode: "plain", sim: { faults: [{ verb: "patch", resource: "trainingruntimes", action: { type: "status", code: 422 } }, { verb: "delete", action: { type: "status", code: 503 } }] } }, (world, config) =>
      Effect.gen(function* () {
        // Step 7 is refused and Start's clean-up cannot delete: a TrainJob and an ownerless copy remain.
        yield* Effect.flip(started(config, 1))
        expect(storedNamed(world, "trainingruntimes", name)).toHaveLength(1)
        world.sim.setFaults([{ verb: "delete", nth: 1, action: { type: "status", code: 503 } }, { verb: "delete", nth: 3, action: { type: "status", code: 503 } }])
        const result = yield* stop(openOf(config), keyOf(1), { waitMs: 5_000 })
        expect(result).toMatchObject({ remaining: [], gone: true })
        expect(storedNamed(world, "trainingruntimes", name)).toEqual([])
        expect(storedNamed(world, "trainjobs", name)).toEqual([])
      })
    ))

  it("Find and findMany meeting a 503 once are tried again", () =>
    afterStart(
      [
        { verb: "get", resource: "trainjobs", nth: 1, action: { type: "status", code: 503 } },
        { verb: "list", resource: "trainjobs", nth: 1, action: { type: "status", code: 429, retryAfterSeconds: 1 } }
      ],
      (world, config) =>
        Effect.gen(function* () {
          expect((yield* find(openOf(config), keyOf(1))).state).toBe("Held")
          expect((yield* findMany(openOf(config), [keyOf(1)])).map((s) => s.state)).toEqual(["Held"])
          expect(count(world, "get", "trainjobs")).toBe(2)
          expect(count(world, "list", "trainjobs")).toBe(2)
        }) as never
    ))

  it("Find in Kueue mode, its Workload list meeting a 503 once, is tried again", () =>
    afterStart([{ verb: "list", resource: "workloads", nth: 1, action: { type: "status", code: 503 } }], (_world, config) =>
      Effect.gen(function* () {
        const status = yield* find(openOf(config), keyOf(1))
        expect(status.state).not.toBe("Absent")
      }) as never
    , "kueue"))

  it("a refusal is not tried again: Open of a TrainJob whose patch is refused 422 writes once", () =>
    afterStart([{ verb: "patch", resource: "trainjobs", action: { type: "status", code: 422 } }], (world, config) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(open(openOf(config), keyOf(1)))
        expect(error._tag).toBe("ErrRejected")
        expect(error).toMatchObject({ cause: { kind: "Refused", code: 422 } })
        expect(count(world, "patch", "trainjobs")).toBe(1)
        expect(storedNamed(world, "trainjobs", name)).toHaveLength(1)
      }) as never
    ))
})
