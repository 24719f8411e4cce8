import { test as propTest } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, test } from "vitest"
import {
  allowedEdge,
  dispatchStateKinds,
  newDispatch,
  nextRetryAt,
  statusOf,
  step,
  wantsCluster,
  type DispatchEvent,
  type DispatchInput,
  type DispatchState,
  type Fault,
  type RetryPolicy
} from "../src/index.ts"

const policy: RetryPolicy = { baseMs: 100, maxMs: 10_000, maxAttempts: 3, maxElapsedMs: 1_000_000 }
const reason = fc.constantFrom("503 Service Unavailable", "429 Too Many Requests", "denied by webhook", "timeout")
const fault = (verdicts: ReadonlyArray<Fault["verdict"]> = ["refused", "passing", "unknown", "readOnly"]) =>
  fc.record(
    { verdict: fc.constantFrom(...verdicts), reason, retryAfterMs: fc.integer({ min: 0, max: 5000 }), landsBy: fc.integer({ min: 0, max: 2_000_000 }) },
    { requiredKeys: ["verdict", "reason"] }
  )

const clusterEvent = (verdicts?: ReadonlyArray<Fault["verdict"]>): fc.Arbitrary<DispatchEvent> =>
  fc.oneof(
    fc.constant<DispatchEvent>({ type: "claim" }),
    reason.map((r): DispatchEvent => ({ type: "unpreparable", reason: r })),
    fc.constant<DispatchEvent>({ type: "startOk" }),
    fault(verdicts).map((f): DispatchEvent => ({ type: "startFailed", fault: f })),
    fc.constant<DispatchEvent>({ type: "openOk" }),
    fault(verdicts).map((f): DispatchEvent => ({ type: "openFailed", fault: f })),
    fc.record({
      found: fc.constantFrom("Absent", "Stopping", "Held", "Queued", "InFlight", "Running", "Succeeded", "Failed" as const),
      untilMs: fc.integer({ min: 0, max: 2_000_000 })
    }).map((f): DispatchEvent => ({ type: "found", ...f })),
    fault(verdicts).map((f): DispatchEvent => ({ type: "findFailed", fault: f })),
    fc.boolean().map((gone): DispatchEvent => ({ type: "stopped", gone })),
    fault().map((f): DispatchEvent => ({ type: "stopFailed", fault: f })),
    fc.constant<DispatchEvent>({ type: "holdOk" }),
    fault().map((f): DispatchEvent => ({ type: "holdFailed", fault: f })),
    fc.constant<DispatchEvent>({ type: "releaseOk" }),
    fault().map((f): DispatchEvent => ({ type: "releaseFailed", fault: f }))
  )

const userEvent: fc.Arbitrary<DispatchEvent> = fc.oneof(
  fc.constantFrom<DispatchEvent>({ type: "cancel" }, { type: "delete" }, { type: "hold" }, { type: "release" }, { type: "rerun" }),
  fc.constantFrom("queued", "started", "deferred", "finished", "failed", "reset" as const).map((change): DispatchEvent => ({ type: "setStatus", change }))
)

const anyEvent = fc.oneof({ weight: 4, arbitrary: clusterEvent() }, { weight: 1, arbitrary: userEvent })

/** A run of events, each at a later time with its own draw. */
const timed = (events: fc.Arbitrary<DispatchEvent>, maxLength = 30) =>
  fc.array(fc.tuple(events, fc.integer({ min: 0, max: 50_000 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })), { maxLength })

interface Run {
  readonly states: ReadonlyArray<DispatchState>
  readonly history: ReadonlyArray<string>
  readonly commands: ReadonlyArray<string>
  readonly now: number
}

const run = (from: DispatchState, events: ReadonlyArray<readonly [DispatchEvent, number, number]>, start = 0): Run => {
  let state = from
  let now = start
  const states = [state]
  const history: Array<string> = [statusOf(state)]
  const commands: Array<string> = []
  for (const [event, elapsed, draw] of events) {
    now += elapsed
    const answer = step(state, event, { nowMs: now, policy, draw })
    for (const c of answer.commands) {
      commands.push(c.type)
      if (c.type === "record") history.push(c.status)
    }
    state = answer.state
    states.push(state)
  }
  return { states, history, commands, now }
}

/** A state reached from a new job by some run of events. */
const reachable = timed(anyEvent, 25).map((events) => {
  const r = run(newDispatch, events)
  return { state: r.states[r.states.length - 1] as DispatchState, now: r.now }
})

const input = (nowMs: number, draw = 0.5): DispatchInput => ({ nowMs, policy, draw })

describe("the dispatch machine", () => {
  propTest.prop([reachable, fc.constantFrom<DispatchEvent>({ type: "cancel" }, { type: "delete" }), timed(fc.oneof(clusterEvent(), fc.constant<DispatchEvent>({ type: "rerun" })))])(
    "after a cancel or delete, whatever the cluster answers, wants nothing on the cluster, never starts or opens, and ends once Stop finds nothing left",
    ({ state, now }, action, later) => {
      const answer = step(state, action, input(now))
      fc.pre(answer.refused === undefined)
      const after = run(answer.state, later, now)
      for (const s of after.states) {
        expect(wantsCluster(s)).toBe(false)
        expect(["stopping", "done", "deleted"]).toContain(s.kind)
      }
      for (const c of after.commands) expect(["start", "open", "look", "release", "hold"]).not.toContain(c)
      const last = after.states[after.states.length - 1] as DispatchState
      const stopped = step(last, { type: "stopped", gone: true }, input(after.now))
      expect(["done", "deleted"]).toContain(stopped.state.kind)
      if (action.type === "delete") expect(stopped.state.kind).toBe("deleted")
      else expect(stopped.state).toMatchObject({ kind: "done", status: "failed" })
    }
  )

  propTest.prop([reachable, fc.constantFrom<DispatchEvent>({ type: "cancel" }, { type: "delete" })])(
    "a cancel or delete of a job an attempt was made for asks for Stop",
    ({ state, now }, action) => {
      fc.pre(state.attempts > 0 && state.kind !== "stopping")
      const answer = step(state, action, input(now))
      fc.pre(answer.refused === undefined)
      expect(answer.state.kind).toBe("stopping")
      expect(answer.commands).toContainEqual({ type: "stop" })
    }
  )

  propTest.prop([reachable, timed(anyEvent)])("a stopping job keeps asking to be stopped (a time to come back) until Stop finds nothing", ({ state, now }, later) => {
    fc.pre(state.kind === "stopping")
    let s: DispatchState = state
    let t = now
    for (const [event, elapsed, draw] of later) {
      t += elapsed
      const answer = step(s, event, { nowMs: t, policy, draw })
      if (event.type === "stopped" && !event.gone) expect(answer.commands).toEqual([{ type: "retryAt", at: nextRetryAt(answer.state) }])
      if (event.type === "stopFailed") expect(answer.commands.map((c) => c.type)).toEqual(["retryAt"])
      if (answer.state.kind !== "stopping") expect(event).toEqual({ type: "stopped", gone: true })
      s = answer.state
      if (s.kind !== "stopping") break
    }
  })

  propTest.prop([reachable, anyEvent])("terminal states (ended finished or failed, or deleted) absorb every event but delete and a status write", ({ state, now }, event) => {
    fc.pre((state.kind === "done" && (state.status === "finished" || state.status === "failed")) || state.kind === "deleted")
    const answer = step(state, event, input(now))
    if (state.kind === "deleted" || (event.type !== "delete" && event.type !== "setStatus")) {
      expect(answer.state).toEqual(state)
      expect(answer.commands).toEqual([])
    }
  })

  propTest.prop([timed(anyEvent, 40)])("the status history only moves along allowed edges, and each entry is the state's status", (events) => {
    const r = run(newDispatch, events)
    for (let i = 1; i < r.history.length; i++) {
      const from = r.history[i - 1] as never
      const to = r.history[i] as never
      expect(from === to || allowedEdge(from, to), `${from} -> ${to}`).toBe(true)
    }
    expect(r.history[r.history.length - 1]).toBe(statusOf(r.states[r.states.length - 1] as DispatchState))
  })

  propTest.prop([timed(fc.oneof(clusterEvent(["passing", "unknown", "readOnly"]).filter((e) => e.type !== "unpreparable"), fc.constantFrom<DispatchEvent>({ type: "rerun" }, { type: "hold" }, { type: "release" })), 40)])(
    "never fails a job on passing faults within the budget",
    (events) => {
      let state = newDispatch
      let now = 0
      for (const [event, elapsed, draw] of events) {
        now += Math.min(elapsed, 1000)
        const answer = step(state, event, { nowMs: now, policy, draw })
        const budgetLeft = state.attempts < policy.maxAttempts
        if (budgetLeft && answer.state.kind !== "done") expect(statusOf(answer.state)).not.toBe("failed")
        if (budgetLeft && answer.state.kind === "done") expect(["Absent", "Stopping", "Failed", "Succeeded"]).toContain(event.type === "found" ? event.found : "")
        state = answer.state
      }
    }
  )

  propTest.prop([fc.integer({ min: 0, max: 1000 }), fault(["passing"]), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })])(
    "a passing fault past the budget fails the job with every attempt's reason, and stops what it may have left",
    (now, f, draw) => {
      const faults = Array.from({ length: policy.maxAttempts - 1 }, (_, i) => `fault ${i}`)
      const state: DispatchState = { kind: "starting", attempts: policy.maxAttempts, firstAt: 0, faults }
      const answer = step(state, { type: "startFailed", fault: f }, { nowMs: now, policy, draw })
      expect(answer.state).toMatchObject({ kind: "stopping", ends: "failed", status: "failed" })
      const recorded = answer.commands.find((c) => c.type === "record")
      for (const r of [...faults, f.reason]) expect(recorded).toMatchObject({ reason: expect.stringContaining(r) })
      expect(answer.commands).toContainEqual({ type: "stop" })
    }
  )

  propTest.prop([fc.integer({ min: 1, max: policy.maxAttempts - 1 }), fault(["passing", "readOnly"]), fc.integer({ min: 0, max: 1_000_000 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })])(
    "retries a passing fault at a time the policy allows, honouring Retry-After",
    (attempts, f, now, draw) => {
      const state: DispatchState = { kind: "owned", attempts, firstAt: now, faults: [] }
      const answer = step(state, { type: "openFailed", fault: f }, { nowMs: now, policy, draw })
      expect(answer.state.kind).toBe("queued")
      const at = nextRetryAt(answer.state) ?? -1
      expect(at).toBeGreaterThanOrEqual(now + (f.retryAfterMs ?? 0))
      expect(at).toBeLessThanOrEqual(now + Math.max(f.retryAfterMs ?? 0, policy.baseMs * 2 ** (attempts - 1)))
      expect(answer.commands).toContainEqual({ type: "retryAt", at })
      expect(answer.commands.some((c) => c.type === "reprove")).toBe(f.verdict === "readOnly")
      // Not due before its time; then a claim looks before it starts anything.
      expect(step(answer.state, { type: "claim" }, input(at - 1)).state).toEqual(answer.state)
      expect(step(answer.state, { type: "claim" }, input(at)).commands).toEqual([{ type: "look" }])
    }
  )

  propTest.prop([fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 1, max: 100_000 })])(
    "never creates while an unanswered create may land, and looks first after",
    (now, bound) => {
      const state: DispatchState = { kind: "starting", attempts: 1, firstAt: now, faults: [] }
      const answer = step(state, { type: "startFailed", fault: { verdict: "unknown", reason: "unanswered", landsBy: now + bound } }, input(now))
      expect(answer.state).toMatchObject({ kind: "unknown", landsBy: now + bound })
      expect(step(answer.state, { type: "claim" }, input(now + bound - 1)).commands).toEqual([])
      const claimed = step(answer.state, { type: "claim" }, input(now + bound))
      expect(claimed).toMatchObject({ state: { kind: "claimed", attempts: 2 }, commands: [{ type: "look" }] })
      expect(step(claimed.state, { type: "found", found: "InFlight", untilMs: now + 2 * bound }, input(now + bound)).state).toMatchObject({ kind: "unknown", landsBy: now + 2 * bound })
    }
  )

  test("takes a job through a whole life: claim, Start, Open, Find until it finishes", () => {
    const t = (s: DispatchState, e: DispatchEvent) => step(s, e, input(10))
    const claimed = t(newDispatch, { type: "claim" })
    expect(claimed).toEqual({ state: { kind: "starting", attempts: 1, firstAt: 10, faults: [] }, commands: [{ type: "start" }] })
    const owned = t(claimed.state, { type: "startOk" })
    expect(owned).toEqual({ state: { kind: "owned", attempts: 1, firstAt: 10, faults: [] }, commands: [{ type: "open" }] })
    const running = t(owned.state, { type: "openOk" })
    expect(running).toEqual({ state: { kind: "running", attempts: 1, status: "queued" }, commands: [] })
    const finished = t(running.state, { type: "found", found: "Succeeded", reason: "AllJobsCompleted" })
    expect(finished).toEqual({
      state: { kind: "done", attempts: 1, status: "finished", reason: "AllJobsCompleted" },
      commands: [{ type: "record", status: "started" }, { type: "record", status: "finished", reason: "AllJobsCompleted" }]
    })
  })

  test("a refusal after Start may have landed stops the job; one before anything was tried fails it at once", () => {
    const starting: DispatchState = { kind: "starting", attempts: 1, firstAt: 0, faults: [] }
    expect(step(starting, { type: "startFailed", fault: { verdict: "refused", reason: "denied" } }, input(5))).toEqual({
      state: { kind: "stopping", attempts: 1, ends: "failed", status: "failed", reason: "denied", retryAt: 5, tries: 0 },
      commands: [{ type: "record", status: "failed", reason: "denied" }, { type: "stop" }]
    })
    expect(step(starting, { type: "unpreparable", reason: "no runtime" }, input(5))).toEqual({
      state: { kind: "done", attempts: 1, status: "failed", reason: "no runtime" },
      commands: [{ type: "record", status: "failed", reason: "no runtime" }]
    })
    expect(step(newDispatch, { type: "cancel" }, input(5))).toEqual({
      state: { kind: "done", attempts: 0, status: "failed", reason: "cancelled" },
      commands: [{ type: "record", status: "failed", reason: "cancelled" }]
    })
    expect(step(newDispatch, { type: "delete" }, input(5))).toEqual({ state: { kind: "deleted", attempts: 0, status: "queued" }, commands: [] })
  })

  test("hold and release on and off the cluster", () => {
    const queued = step(newDispatch, { type: "hold" }, input(0))
    expect(queued.state).toMatchObject({ kind: "holding", onCluster: false, from: "queued" })
    expect(step(queued.state, { type: "release" }, input(0)).state).toEqual(newDispatch)
    const running: DispatchState = { kind: "running", attempts: 1, status: "started" }
    expect(step(running, { type: "hold" }, input(0))).toEqual({ state: running, commands: [{ type: "hold" }] })
    const held = step(running, { type: "holdOk" }, input(0))
    expect(held.state).toMatchObject({ kind: "holding", onCluster: true, from: "started" })
    expect(step(held.state, { type: "release" }, input(0)).commands).toEqual([{ type: "release" }])
    expect(step(held.state, { type: "releaseOk" }, input(0))).toEqual({ state: running, commands: [{ type: "record", status: "started", reason: "released" }] })
    expect(step(running, { type: "holdFailed", fault: { verdict: "passing", reason: "503" } }, input(0)).state).toEqual(running)
  })

  test("names every state", () => {
    expect(new Set(dispatchStateKinds).size).toBe(10)
  })
})

describe("the dispatch machine, answer by answer", () => {
  const at = (nowMs: number, draw = 0.5): DispatchInput => ({ nowMs, policy, draw })
  const queued: DispatchState = { kind: "queued", attempts: 1, retryAt: 40, firstAt: 5, faults: ["f1"] }
  const running: DispatchState = { kind: "running", attempts: 1, status: "started" }
  const stopping: DispatchState = { kind: "stopping", attempts: 2, ends: "cancelled", status: "failed", reason: "cancelled", retryAt: 0, tries: 0 }
  const samples: ReadonlyArray<DispatchState> = [
    queued,
    { kind: "claimed", attempts: 2, firstAt: 5, faults: [] },
    { kind: "starting", attempts: 1, firstAt: 5, faults: [] },
    { kind: "unknown", attempts: 1, landsBy: 77, firstAt: 5, faults: [] },
    { kind: "owned", attempts: 1, firstAt: 5, faults: [] },
    running,
    { kind: "holding", attempts: 1, from: "started", onCluster: true, retryAt: 0, firstAt: null, faults: [] },
    { kind: "holding", attempts: 0, from: "queued", onCluster: false, retryAt: 0, firstAt: null, faults: [] },
    stopping,
    { kind: "done", attempts: 1, status: "finished", reason: null },
    { kind: "deleted", attempts: 1, status: "started" }
  ]

  test("the status, whether it wants the cluster and when it comes back, for every state", () => {
    expect(samples.map((s) => [statusOf(s), wantsCluster(s), nextRetryAt(s)])).toStrictEqual([
      ["queued", false, 40],
      ["queued", true, undefined],
      ["queued", true, undefined],
      ["queued", true, 77],
      ["queued", true, undefined],
      ["started", true, undefined],
      ["deferred", true, undefined],
      ["deferred", false, undefined],
      ["failed", false, 0],
      ["finished", false, undefined],
      ["started", false, undefined]
    ])
  })

  test("the history's edges are Dioptra's changes and the service's three", () => {
    const edges = ["queued->started", "queued->deferred", "queued->queued", "started->finished", "started->failed", "started->queued", "deferred->started", "deferred->queued", "finished->queued", "failed->queued", "queued->failed", "started->deferred", "deferred->failed"]
    const statuses = ["queued", "started", "deferred", "finished", "failed"] as const
    for (const from of statuses) for (const to of statuses) expect(allowedEdge(from, to), `${from}->${to}`).toBe(edges.includes(`${from}->${to}`))
  })

  test("user actions: exact answers and refusals", () => {
    expect(step({ kind: "deleted", attempts: 1, status: "failed" }, { type: "delete" }, at(1))).toStrictEqual({ state: { kind: "deleted", attempts: 1, status: "failed" }, commands: [], refused: "the job is deleted" })
    expect(step(stopping, { type: "delete" }, at(1))).toStrictEqual({ state: { ...stopping, ends: "deleted" }, commands: [{ type: "stop" }] })
    expect(step(running, { type: "delete" }, at(9))).toStrictEqual({ state: { kind: "stopping", attempts: 1, ends: "deleted", status: "started", reason: "deleted", retryAt: 9, tries: 0 }, commands: [{ type: "stop" }] })
    expect(step(running, { type: "cancel" }, at(9))).toStrictEqual({
      state: { kind: "stopping", attempts: 1, ends: "cancelled", status: "failed", reason: "cancelled", retryAt: 9, tries: 0 },
      commands: [{ type: "record", status: "failed", reason: "cancelled" }, { type: "stop" }]
    })
    expect(step({ kind: "done", attempts: 1, status: "finished", reason: null }, { type: "cancel" }, at(1)).refused).toBe("a finished job cannot be cancelled")
    expect(step(stopping, { type: "cancel" }, at(1)).refused).toBe("a failed job cannot be cancelled")
    expect(step({ kind: "deleted", attempts: 0, status: "queued" }, { type: "cancel" }, at(1)).refused).toBe("a queued job cannot be cancelled")
    expect(step(queued, { type: "hold" }, at(1))).toStrictEqual({
      state: { kind: "holding", attempts: 1, from: "queued", onCluster: false, retryAt: 40, firstAt: 5, faults: ["f1"] },
      commands: [{ type: "record", status: "deferred", reason: "held" }]
    })
    expect(step(stopping, { type: "hold" }, at(1)).refused).toBe("a job that is stopping cannot be held")
    expect(step(queued, { type: "release" }, at(1)).refused).toBe("a job that is queued cannot be released")
    const held = step(queued, { type: "hold" }, at(1)).state
    expect(step(held, { type: "release" }, at(1))).toStrictEqual({ state: queued, commands: [{ type: "record", status: "queued", reason: "released" }] })
    expect(step(running, { type: "holdOk" }, at(1))).toStrictEqual({
      state: { kind: "holding", attempts: 1, from: "started", onCluster: true, retryAt: 0, firstAt: null, faults: [] },
      commands: [{ type: "record", status: "deferred", reason: "held" }]
    })
    expect(step(running, { type: "setStatus", change: "finished" }, at(1)).refused).toBe("the service drives this job's status while it is running")
    expect(step(newDispatch, { type: "setStatus", change: "deferred" }, at(1))).toStrictEqual({
      state: { kind: "holding", attempts: 0, from: "queued", onCluster: false, retryAt: 0, firstAt: null, faults: [] },
      commands: [{ type: "record", status: "deferred" }]
    })
    expect(step(newDispatch, { type: "setStatus", change: "started" }, at(1))).toStrictEqual({ state: { kind: "done", attempts: 0, status: "started", reason: null }, commands: [{ type: "record", status: "started" }] })
    expect(step({ kind: "holding", attempts: 0, from: "queued", onCluster: false, retryAt: 0, firstAt: null, faults: [] }, { type: "setStatus", change: "reset" }, at(1))).toStrictEqual({
      state: newDispatch,
      commands: [{ type: "record", status: "queued" }]
    })
    expect(step(newDispatch, { type: "setStatus", change: "finished" }, at(1)).refused).toBe("a queued job cannot become finished; allowed: started, deferred, reset")
  })

  test("claims: the first starts, a later one (or a claim taken over) looks first, keeping when the first attempt was", () => {
    expect(step(newDispatch, { type: "claim" }, at(3))).toStrictEqual({ state: { kind: "starting", attempts: 1, firstAt: 3, faults: [] }, commands: [{ type: "start" }] })
    expect(step({ ...queued, firstAt: null }, { type: "claim" }, at(50))).toStrictEqual({ state: { kind: "claimed", attempts: 2, firstAt: 50, faults: ["f1"] }, commands: [{ type: "look" }] })
    expect(step(queued, { type: "claim" }, at(50)).state).toMatchObject({ firstAt: 5 })
    expect(step({ kind: "starting", attempts: 1, firstAt: 5, faults: [] }, { type: "claim" }, at(50))).toStrictEqual({
      state: { kind: "claimed", attempts: 2, firstAt: 5, faults: [] },
      commands: [{ type: "look" }]
    })
  })

  test("what a look finds: an unanswered create waits, a TrainJob being deleted is a passing fault", () => {
    const claimed: DispatchState = { kind: "claimed", attempts: 2, firstAt: 5, faults: [] }
    expect(step(claimed, { type: "found", found: "InFlight", untilMs: 90 }, at(10))).toStrictEqual({
      state: { kind: "unknown", attempts: 2, landsBy: 90, firstAt: 5, faults: ["a create of the TrainJob went unanswered and may still land"] },
      commands: [{ type: "retryAt", at: 90 }]
    })
    expect(step(claimed, { type: "found", found: "InFlight" }, at(10)).state).toMatchObject({ kind: "unknown", landsBy: 10 })
    expect(step(claimed, { type: "found", found: "Stopping" }, at(10, 0)).state).toStrictEqual({ kind: "queued", attempts: 2, retryAt: 10, firstAt: 5, faults: ["the TrainJob is being deleted"] })
    expect(step(claimed, { type: "found", found: "Stopping", reason: "going" }, at(10, 0)).state).toMatchObject({ faults: ["going"] })
  })

  test("a look that finds the TrainJob opened but not yet running opens it again (an Open cut short), one found running follows it", () => {
    const claimed: DispatchState = { kind: "claimed", attempts: 2, firstAt: 5, faults: ["f1"] }
    expect(step(claimed, { type: "found", found: "Queued" }, at(10))).toStrictEqual({
      state: { kind: "owned", attempts: 2, firstAt: 5, faults: ["f1"] },
      commands: [{ type: "open" }]
    })
    expect(step(claimed, { type: "found", found: "Held" }, at(10))).toStrictEqual({ state: { kind: "starting", attempts: 2, firstAt: 5, faults: ["f1"] }, commands: [{ type: "start" }] })
    for (const found of ["Running", "Succeeded", "Failed"] as const) {
      expect(step(claimed, { type: "found", found }, at(10))).toStrictEqual({ state: { kind: "running", attempts: 2, status: "queued" }, commands: [] })
    }
  })

  test("a spent budget fails with every reason; a read-only queue does not spend it", () => {
    const spent: DispatchState = { kind: "owned", attempts: policy.maxAttempts, firstAt: 0, faults: ["a", "b"] }
    expect(step(spent, { type: "openFailed", fault: { verdict: "passing", reason: "c" } }, at(10))).toStrictEqual({
      state: { kind: "stopping", attempts: policy.maxAttempts, ends: "failed", status: "failed", reason: "gave up after 3 attempts: a; b; c", retryAt: 10, tries: 0 },
      commands: [{ type: "record", status: "failed", reason: "gave up after 3 attempts: a; b; c" }, { type: "stop" }]
    })
    expect(step(spent, { type: "openFailed", fault: { verdict: "readOnly", reason: "c" } }, at(10, 0))).toStrictEqual({
      state: { kind: "queued", attempts: policy.maxAttempts, retryAt: 10, firstAt: 0, faults: ["a", "b", "c"] },
      commands: [{ type: "reprove", reason: "c" }, { type: "retryAt", at: 10 }]
    })
  })

  test("a stop not done comes back after the policy's delay, a refused one at the longest, an unanswered create's at its bound", () => {
    expect(step(stopping, { type: "stopped", gone: false }, at(100, 0.5))).toStrictEqual({ state: { ...stopping, tries: 1, retryAt: 150 }, commands: [{ type: "retryAt", at: 150 }] })
    const tried = { ...stopping, tries: 2 }
    expect(step(tried, { type: "stopFailed", fault: { verdict: "passing", reason: "503", retryAfterMs: 900 } }, at(100, 0.5))).toStrictEqual({ state: { ...tried, tries: 3, retryAt: 1000 }, commands: [{ type: "retryAt", at: 1000 }] })
    expect(step(tried, { type: "stopFailed", fault: { verdict: "passing", reason: "503" } }, at(100, 0.5)).state).toMatchObject({ retryAt: 100 + 200 })
    expect(step(tried, { type: "stopFailed", fault: { verdict: "refused", reason: "denied" } }, at(100, 0.5)).state).toMatchObject({ tries: 3, retryAt: 100 + policy.maxMs / 2 })
    expect(step(tried, { type: "stopFailed", fault: { verdict: "unknown", reason: "in flight", landsBy: 700 } }, at(100, 0.5)).state).toMatchObject({ retryAt: 700 })
    expect(step(tried, { type: "stopFailed", fault: { verdict: "unknown", reason: "in flight", landsBy: 50 } }, at(100, 0.5)).state).toMatchObject({ retryAt: 100 })
    expect(step(tried, { type: "stopFailed", fault: { verdict: "unknown", reason: "in flight" } }, at(100, 0.5)).state).toMatchObject({ retryAt: 100 + 200 })
    expect(step(stopping, { type: "stopped", gone: true }, at(1))).toStrictEqual({ state: { kind: "done", attempts: 2, status: "failed", reason: "cancelled" }, commands: [] })
    expect(step({ ...stopping, ends: "deleted", status: "started" }, { type: "stopped", gone: true }, at(1))).toStrictEqual({ state: { kind: "deleted", attempts: 2, status: "started" }, commands: [] })
    expect(step(stopping, { type: "startOk" }, at(1))).toStrictEqual({ state: stopping, commands: [] })
  })
})
