// Find's promises beyond the scenarios: the selector stays short for many jobs, malformed keys are named
// before any call, a gate that is closed refuses reads, an object of the job's name that dispatch did
// not make is not the job, and a create seen once is no longer InFlight.
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { labelKeys, admissionGateName } from "@dispatch/render"
import { openBackend } from "../../src/Backend.ts"
import { InFlight, inFlightKey, makeInFlight, type InFlightShape } from "../../src/InFlight.ts"
import { SimCluster } from "@dispatch/sim/cluster"
import { find, findMany, MAX_SELECTOR_JOBS, selectorFor, workloadSelectorFor, type FoundJob } from "../../src/lifecycle/Find.ts"
import { hold, open } from "../../src/lifecycle/Transitions.ts"
import type { Backend } from "../../src/Backend.ts"
import type { Cluster } from "../../src/Cluster.ts"
import { backendOf, configOf, errorOf, jobId, namespace, requestOf, runStart, runOnTestClock, simOf, trainJobNameOf, valueOf, type RecordedSim } from "../StartFixture.ts"
import { inProcess, keyOf, started } from "./LifecycleFixture.ts"

const plain = configOf("plain")
const kueue = configOf("kueue")
const jobLabel = labelKeys(plain).jobId

const runOn = <A, E>(recorded: RecordedSim, effect: Effect.Effect<A, E, Cluster | InFlight>, inFlight: InFlightShape = makeInFlight()) =>
  runOnTestClock(effect.pipe(Effect.provide(Layer.merge(SimCluster(recorded.face, { callMs: plain.timeouts.callMs }), Layer.succeed(InFlight, inFlight)))))

describe("selectorFor", () => {
  it("names each job once, sorted, up to MAX_SELECTOR_JOBS jobs; above that it selects every dispatch TrainJob", () => {
    expect(selectorFor(plain, [keyOf(3), keyOf(1), keyOf(3, 2)])).toBe(`${jobLabel} in (${jobId(1)},${jobId(3)})`)
    const atLimit = Array.from({ length: MAX_SELECTOR_JOBS }, (_, i) => keyOf(i + 1))
    expect(selectorFor(plain, atLimit)).toBe(`${jobLabel} in (${atLimit.map((k) => k.job).sort().join(",")})`)
    // Many submissions of few jobs still name the jobs: the limit counts distinct jobs.
    expect(selectorFor(plain, Array.from({ length: MAX_SELECTOR_JOBS + 1 }, (_, i) => keyOf(1, i + 1)))).toBe(`${jobLabel} in (${jobId(1)})`)
    expect(selectorFor(plain, [...atLimit, keyOf(MAX_SELECTOR_JOBS + 1)])).toBe(jobLabel)
  })

  it("selects Workloads by the TrainJobs' UIDs up to MAX_SELECTOR_JOBS, then every Workload Kueue made for a job", () => {
    expect(workloadSelectorFor(["u1", "u2"])).toBe("kueue.x-k8s.io/job-uid in (u1,u2)")
    const uids = Array.from({ length: MAX_SELECTOR_JOBS }, (_, i) => `u${i}`)
    expect(workloadSelectorFor(uids)).toBe(`kueue.x-k8s.io/job-uid in (${uids.join(",")})`)
    expect(workloadSelectorFor([...uids, "u-last"])).toBe("kueue.x-k8s.io/job-uid")
  })
})

describe("findMany", () => {
  it("with no keys answers nothing, without a call", async () => {
    const recorded = simOf()
    expect(valueOf(await runOn(recorded, findMany(backendOf(kueue), [])))).toEqual([])
    expect(recorded.calls).toEqual([])
  })

  it("names every malformed key by its index before any call", async () => {
    const recorded = simOf()
    const error = errorOf(await runOn(recorded, findMany(backendOf(plain), [keyOf(1), { job: "not-a-ulid", submission: 1 }, { job: jobId(2), submission: 0 }])))
    expect(error._tag).toBe("ErrInvalid")
    expect(error.reasons).toHaveLength(2)
    expect(error.reasons[0]).toMatch(/^keys\[1\] job: "not-a-ulid" is not a JobID/)
    expect(error.reasons[1]).toBe("keys[2] submission: must be a whole number from 1 to 999999, got 0")
    expect(recorded.calls).toEqual([])
  })

  it("in Kueue mode lists no Workloads when no TrainJob was found", async () => {
    const recorded = simOf()
    const statuses = valueOf(await runOn(recorded, findMany(backendOf(kueue), [keyOf(1), keyOf(2)])))
    expect(statuses.map((s) => s.state)).toEqual(["Absent", "Absent"])
    expect(recorded.calls.map((c) => `${c.request.verb} ${c.request.resource}`)).toEqual(["list trainjobs"])
  })

  it("answers in the order of the keys, a repeated key twice, each with its TrainJob's reference", async () => {
    const recorded = simOf()
    const one = valueOf(await runStart(recorded, backendOf(plain), requestOf(1)))
    const statuses = valueOf(await runOn(recorded, findMany(backendOf(plain), [keyOf(2), keyOf(1), keyOf(2)])))
    expect(statuses).toEqual([
      { state: "Absent", ref: { namespace, name: trainJobNameOf(2) } },
      { state: "Held", reason: "spec.suspend is true: Open or Release it", ref: { namespace, name: one.name, uid: one.uid } },
      { state: "Absent", ref: { namespace, name: trainJobNameOf(2) } }
    ])
  })
})

/** Starts job 1 in plain mode, then takes dispatch's labels off its TrainJob, as if someone else had made it. */
const foreignTrainJob = async (): Promise<RecordedSim> => {
  const recorded = simOf()
  valueOf(await runStart(recorded, backendOf(plain), requestOf(1)))
  const stored = recorded.sim.system.get("trainjobs", namespace, trainJobNameOf(1))!
  recorded.sim.system.update("trainjobs", { ...stored, metadata: { ...stored.metadata, labels: { app: "someone-else" } } })
  return recorded
}

describe("Find on objects dispatch did not make", () => {
  it("a TrainJob of the job's name without the job's labels is not the job: Absent, by Find and by findMany", async () => {
    const recorded = await foreignTrainJob()
    expect(valueOf(await runOn(recorded, find(backendOf(plain), keyOf(1))))).toEqual({ state: "Absent", ref: { namespace, name: trainJobNameOf(1) } })
    expect(valueOf(await runOn(recorded, findMany(backendOf(plain), [keyOf(1)]))).map((s) => s.state)).toEqual(["Absent"])
  })

  it("the submission label counts too: submission 2 of a job is not submission 1", async () => {
    const recorded = simOf()
    valueOf(await runStart(recorded, backendOf(plain), requestOf(1)))
    const stored = recorded.sim.system.get("trainjobs", namespace, trainJobNameOf(1))!
    const labels = stored.metadata?.["labels"] as Record<string, string>
    recorded.sim.system.update("trainjobs", { ...stored, metadata: { ...stored.metadata, labels: { ...labels, [labelKeys(plain).submission]: "2" } } })
    expect(valueOf(await runOn(recorded, find(backendOf(plain), keyOf(1)))).state).toBe("Absent")
    expect(valueOf(await runOn(recorded, findMany(backendOf(plain), [keyOf(1)])))[0]?.state).toBe("Absent")
  })
})

describe("Find and the gates", () => {
  const closed: Backend = backendOf(plain, { state: "closed", reason: "the API server did not answer" })

  it("a closed backend refuses Find and findMany with ErrUnreachable naming why, without a call", async () => {
    const recorded = simOf()
    for (const program of [Effect.asVoid(find(closed, keyOf(1))), Effect.asVoid(findMany(closed, [keyOf(1)]))]) {
      const error = errorOf(await runOn(recorded, program))
      expect(error._tag).toBe("ErrUnreachable")
      expect(error.reasons.join(" ")).toContain("the API server did not answer")
    }
    expect(recorded.calls).toEqual([])
  })

  it("read-only and observe-only backends may still Find", async () => {
    const recorded = simOf()
    for (const gate of [{ state: "read-only" as const, reason: "403" }, { state: "observe-only" as const, reason: "no Kueue" }]) {
      expect(valueOf(await runOn(recorded, find(backendOf(plain, gate), keyOf(1)))).state).toBe("Absent")
      expect(valueOf(await runOn(recorded, findMany(backendOf(plain, gate), [keyOf(1)])))[0]?.state).toBe("Absent")
    }
  })
})

describe("Find and InFlight", () => {
  // A create that went unanswered at time 0, which Find's TestClock (also at 0) sees as young.
  const remembering = () => {
    const inFlight = makeInFlight()
    Effect.runSync(inFlight.remember(inFlightKey({ namespace, name: trainJobNameOf(1) }), 0))
    return inFlight
  }

  for (const [name, findOne] of [
    ["find", (b: Backend) => find(b, keyOf(1))],
    ["findMany", (b: Backend) => Effect.map(findMany(b, [keyOf(1)]), (all) => all[0]!)]
  ] as const) {
    it(`${name}: once the TrainJob has been seen, the create is known to have landed: a later delete makes the job Absent, not InFlight`, async () => {
      const recorded = simOf()
      valueOf(await runStart(recorded, backendOf(plain), requestOf(1)))
      const inFlight = remembering()
      expect(valueOf(await runOn(recorded, findOne(backendOf(plain)), inFlight)).state).toBe("Held")
      recorded.sim.system.delete("trainjobs", namespace, trainJobNameOf(1))
      expect(valueOf(await runOn(recorded, findOne(backendOf(plain)), inFlight)).state).toBe("Absent")
    })

    it(`${name}: before the TrainJob is seen, a young unanswered create is InFlight`, async () => {
      const recorded = simOf()
      const status = valueOf(await runOn(recorded, findOne(backendOf(plain)), remembering()))
      expect(status).toMatchObject({ state: "InFlight", sinceMs: 0, untilMs: plain.timeouts.callBoundMs })
    })
  }
})

describe("Kueue mode: Find reads the Workload, findMany lists them once", () => {
  it("find reads the Workload: a started job is held by dispatch's gate on it", () =>
    inProcess.run({ mode: "kueue" }, (world, config) =>
      Effect.gen(function* () {
        const { uid } = yield* started(config, 1)
        const before = world.calls.length
        expect(yield* find(openBackend(config), keyOf(1))).toMatchObject({ state: "Held", reason: `the Workload carries dispatch's gate ${admissionGateName(config)}: Open it` })
        // The Workloads of that TrainJob only, by its UID.
        expect(world.calls.slice(before).filter((c) => c.request.resource === "workloads").map((c) => c.request.labelSelector)).toEqual([`kueue.x-k8s.io/job-uid=${uid}`])
      })
    ))

  it("findMany answers each job as Find does, with one list of TrainJobs and one of their Workloads, selected by sorted UIDs", () =>
    inProcess.run({ mode: "kueue" }, (world, config) =>
      Effect.gen(function* () {
        const backend = openBackend(config)
        const uids: Array<string> = []
        for (const n of [1, 2, 3, 4]) uids.push((yield* started(config, n)).uid)
        yield* open(backend, keyOf(2))
        yield* hold(backend, keyOf(3))
        const keys = [keyOf(4), keyOf(2), keyOf(5), keyOf(1), keyOf(3)]
        const one: Array<FoundJob> = []
        for (const key of keys) one.push(yield* find(backend, key))
        const before = world.calls.length
        const many = yield* findMany(backend, keys)
        expect(many).toEqual(one)
        // The gate, the admission and a Hold are each read off a Workload.
        expect(new Set(many.map((s) => ("reason" in s ? s.reason : s.state))).size).toBeGreaterThanOrEqual(3)
        const calls = world.calls.slice(before).map((c) => [c.request.verb, c.request.resource, c.request.labelSelector])
        expect(calls).toEqual([
          ["list", "trainjobs", selectorFor(config, keys)],
          ["list", "workloads", `kueue.x-k8s.io/job-uid in (${[...uids].sort().join(",")})`]
        ])
      })
    ))

  it("in plain mode find reads the TrainJob alone", () =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        yield* started(config, 1)
        const before = world.calls.length
        expect((yield* find(openBackend(config), keyOf(1))).state).toBe("Held")
        expect(world.calls.slice(before).map((c) => `${c.request.verb} ${c.request.resource}`)).toEqual(["get trainjobs"])
      })
    ))

  it("in plain mode findMany lists no Workloads, even with TrainJobs found", () =>
    inProcess.run({ mode: "plain" }, (world, config) =>
      Effect.gen(function* () {
        yield* started(config, 1)
        const before = world.calls.length
        expect((yield* findMany(openBackend(config), [keyOf(1)]))[0]?.state).toBe("Held")
        expect(world.calls.slice(before).map((c) => `${c.request.verb} ${c.request.resource}`)).toEqual(["list trainjobs"])
      })
    ))
})
