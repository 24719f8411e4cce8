// Steps 7, 8 and 9 under passing faults: a 503, a 429 with Retry-After or an unanswered call is tried again
// in place (RetryPolicy); only after the policy's tries does the step fail, and then Start stops its
// TrainJob and says ErrRejected with the cause that decided it. Checked against what the simulator stores.
import { describe, expect, it } from "vitest"
import type { FaultRule, KubeObject } from "@dispatch/sim"
import { RETRY_POLICY } from "../src/RetryPolicy.ts"
import { isPassing, retryAfterOf } from "../src/StartErrors.ts"
import { backendOf, configOf, errorOf, intercepted, namespace, type RecordedSim, requestOf, runStart, simOf, stored, trainJobNameOf, valueOf } from "./StartFixture.ts"

const plain = backendOf(configOf("plain"))
const kueue = backendOf(configOf("kueue"))
const name1 = trainJobNameOf(1)
const kueueQueues = { kueue: { queues: { "team-queue": { admissionChecks: ["dispatch-check"] } } } }

const uidOf = (object: KubeObject | undefined): unknown => object?.metadata?.["uid"]
const ownerUids = (object: KubeObject | undefined): ReadonlyArray<unknown> =>
  ((object?.metadata?.["ownerReferences"] as ReadonlyArray<Record<string, unknown>> | undefined) ?? []).map((o) => o["uid"])
const copyOf = (recorded: RecordedSim): KubeObject | undefined => recorded.sim.system.get("trainingruntimes", namespace, name1)

/** A recorded simulator that also notes the simulator's time of every call. */
const timedSimOf = (faults: ReadonlyArray<FaultRule>, controllers?: object): RecordedSim & { readonly times: Array<{ verb: string; resource: string; at: number }> } => {
  const recorded = simOf({ faults, ...(controllers === undefined ? {} : { controllers }) })
  const times: Array<{ verb: string; resource: string; at: number }> = []
  return { ...intercepted(recorded, (request, next) => (times.push({ verb: request.verb, resource: request.resource, at: recorded.sim.now() }), next(request))), times }
}

const callsOf = (recorded: RecordedSim, verb: string, resource: string) => recorded.calls.filter((c) => c.request.verb === verb && c.request.resource === resource)

/** The job started: one TrainJob, suspended, owning its copy. */
const expectStarted = (recorded: RecordedSim, uid: string): void => {
  expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([uid])
  expect(ownerUids(copyOf(recorded))).toEqual([uid])
}

/** The job stopped: nothing of it left. */
const expectNothingLeft = (recorded: RecordedSim): void => {
  expect(stored(recorded, "trainjobs")).toEqual([])
  expect(copyOf(recorded)).toBeUndefined()
}

describe("Start retries a passing fault inside steps 7, 8 and 9", () => {
  it("a 503 on the owner PATCH is tried again, and Start succeeds with the copy owned", async () => {
    const recorded = simOf({ faults: [{ verb: "patch", resource: "trainingruntimes", nth: 1, action: { type: "status", code: 503 } }] })
    const result = valueOf(await runStart(recorded, plain, requestOf(1)))
    expectStarted(recorded, result.uid)
    expect(callsOf(recorded, "patch", "trainingruntimes")).toHaveLength(2)
  })

  it("a 503 on the read-back GET is tried again, and Start succeeds", async () => {
    const recorded = simOf({ faults: [{ verb: "get", resource: "trainjobs", nth: 1, action: { type: "status", code: 503 } }] })
    const result = valueOf(await runStart(recorded, plain, requestOf(1)))
    expectStarted(recorded, result.uid)
    expect(callsOf(recorded, "get", "trainjobs")).toHaveLength(2)
  })

  it("an unanswered read-back GET is tried again, and Start succeeds", async () => {
    const recorded = simOf({ faults: [{ verb: "get", resource: "trainjobs", nth: 1, action: { type: "drop" } }] })
    const result = valueOf(await runStart(recorded, plain, requestOf(1)))
    expectStarted(recorded, result.uid)
    expect(callsOf(recorded, "get", "trainjobs")).toHaveLength(2)
  })

  it("an owner PATCH that landed unanswered, then a 503 on the read-back, still starts the job owned and read back", async () => {
    const recorded = simOf({
      faults: [
        { verb: "patch", resource: "trainingruntimes", nth: 1, action: { type: "drop" } },
        { verb: "get", resource: "trainjobs", nth: 1, action: { type: "status", code: 503 } }
      ]
    })
    const result = valueOf(await runStart(recorded, plain, requestOf(1)))
    expectStarted(recorded, result.uid)
  })

  it("a 429 is tried again no sooner than its Retry-After", async () => {
    const recorded = timedSimOf([{ verb: "patch", resource: "trainingruntimes", nth: 1, action: { type: "status", code: 429, retryAfterSeconds: 3 } }])
    const result = valueOf(await runStart(recorded, plain, requestOf(1)))
    expectStarted(recorded, result.uid)
    const patches = recorded.times.filter((t) => t.verb === "patch" && t.resource === "trainingruntimes")
    expect(patches).toHaveLength(2)
    // The retry reads the copy first, then patches: both after the wait.
    const afterWait = recorded.times.slice(recorded.times.indexOf(patches[0]!) + 1)
    for (const call of afterWait) expect(call.at - patches[0]!.at).toBeGreaterThanOrEqual(3000)
  })

  it.each([
    ["the owner PATCH", { verb: "patch", resource: "trainingruntimes" }, "the runtime copy's owner could not be set"],
    ["the read-back GET", { verb: "get", resource: "trainjobs" }, "the TrainJob could not be read back"]
  ] as const)("a 503 on %s every try ends in ErrRejected with the passing cause; the TrainJob and copy are stopped", async (_, call, first) => {
    const recorded = simOf({ faults: [{ ...call, times: RETRY_POLICY.tries, nth: 1, action: { type: "status", code: 503 } }] })
    const error = errorOf(await runStart(recorded, plain, requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(error.reasons[0]).toBe(first)
    expect(error).toMatchObject({ cause: { kind: "Passing", reason: "ServerError", code: 503 } })
    expect(isPassing(error)).toBe(true)
    expect(callsOf(recorded, call.verb, call.resource).length).toBeGreaterThanOrEqual(RETRY_POLICY.tries)
    expectNothingLeft(recorded)
  })

  it("a Retry-After longer than the policy allows ends the step at once, and the error carries the wait", async () => {
    const waitS = RETRY_POLICY.maxWaitMs / 1000 + 1
    const recorded = simOf({ faults: [{ verb: "get", resource: "trainjobs", nth: 1, action: { type: "status", code: 429, retryAfterSeconds: waitS } }] })
    const error = errorOf(await runStart(recorded, plain, requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(error).toMatchObject({ cause: { kind: "Passing", code: 429, retryAfterMs: waitS * 1000 } })
    expect(retryAfterOf(error)).toBe(waitS * 1000)
    expect(callsOf(recorded, "get", "trainjobs")).toHaveLength(1)
    expectNothingLeft(recorded)
  })

  it("a refusal of the owner PATCH is not retried, and its cause says Refused", async () => {
    const recorded = simOf({ faults: [{ verb: "patch", resource: "trainingruntimes", nth: 1, action: { type: "status", code: 422 } }] })
    const error = errorOf(await runStart(recorded, plain, requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(error).toMatchObject({ cause: { kind: "Refused", reason: "Invalid", code: 422 } })
    expect(isPassing(error)).toBe(false)
    expect(callsOf(recorded, "patch", "trainingruntimes")).toHaveLength(1)
    expectNothingLeft(recorded)
  })

  it("a read-back that differs from what Start wrote carries no cause: a refusal", async () => {
    // The TrainJob is read back unsuspended, as if someone else had opened it.
    const recorded = simOf()
    const unsuspended = intercepted(recorded, (request, next) => {
      const outcome = next(request)
      if (request.verb !== "get" || request.resource !== "trainjobs" || outcome.kind !== "answered") return outcome
      const body = outcome.response.body as KubeObject
      return { ...outcome, response: { ...outcome.response, body: { ...body, spec: { ...(body["spec"] as object), suspend: false } } } }
    })
    const error = errorOf(await runStart(unsuspended, plain, requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect("cause" in error && error.cause !== undefined).toBe(false)
    expect(isPassing(error)).toBe(false)
  })

  it("in Kueue mode, a Workload list failing with 503 until timeouts.workload ends in ErrRejected with the passing cause", async () => {
    const recorded = simOf({ controllers: kueueQueues, faults: [{ verb: "list", resource: "workloads", action: { type: "status", code: 503 } }] })
    const error = errorOf(await runStart(recorded, kueue, requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(error).toMatchObject({ cause: { kind: "Passing", reason: "ServerError", code: 503 } })
    expectNothingLeft(recorded)
  })

  it("in Kueue mode, a Workload list answered 429 is not read again before its Retry-After", async () => {
    const recorded = timedSimOf([{ verb: "list", resource: "workloads", nth: 1, action: { type: "status", code: 429, retryAfterSeconds: 5 } }], kueueQueues)
    valueOf(await runStart(recorded, kueue, requestOf(1)))
    const lists = recorded.times.filter((t) => t.verb === "list" && t.resource === "workloads")
    expect(lists.length).toBeGreaterThanOrEqual(2)
    expect(lists[1]!.at - lists[0]!.at).toBeGreaterThanOrEqual(5000)
  })
})
