// Several Starts of one request at once (a supervisor retrying while its first call hangs): whatever
// the interleaving, a TrainJob one Start returned success for is never stopped by another.
import { Exit } from "effect"
import { describe, expect, it } from "vitest"
import type { KubeObject } from "@dispatch/sim"
import { RETRY_POLICY } from "../../src/RetryPolicy.ts"
import { backendOf, configOf, namespace, requestOf, runStartsTogether, simOf, stored, trainJobNameOf } from "../StartFixture.ts"

const name1 = trainJobNameOf(1)
const kueueQueues = { kueue: { queues: { "team-queue": { admissionChecks: ["dispatch-check"] } } } }
const uidOf = (object: KubeObject | undefined): unknown => object?.metadata?.["uid"]
const successes = <A, E>(exits: ReadonlyArray<Exit.Exit<A, E>>): ReadonlyArray<A> => exits.flatMap((e) => (Exit.isSuccess(e) ? [e.value] : []))

describe("two Starts of one request at once", () => {
  it.each(["plain", "kueue"] as const)("in %s mode: the creator's owner patch lands but is answered late; both end on the one TrainJob", async (mode) => {
    const config = configOf(mode)
    // The call timeout is 5 s: the creator's owner patch is applied and answered after 6 s (unanswered).
    const recorded = simOf({
      ...(mode === "kueue" ? { controllers: kueueQueues } : {}),
      faults: [{ verb: "patch", resource: "trainingruntimes", nth: 1, action: { type: "delay", ms: 6_000 } }]
    })
    const exits = await runStartsTogether(recorded, backendOf(config), [requestOf(1), requestOf(1)])
    const [job] = stored(recorded, "trainjobs")
    for (const value of successes(exits)) expect(value.uid).toBe(uidOf(job))
    expect(successes(exits).length).toBeGreaterThan(0)
    expect(recorded.calls.filter((c) => c.request.verb === "delete" && c.request.resource === "trainjobs")).toEqual([])
  })

  it.each(["plain", "kueue"] as const)("in %s mode: the creator fails its read-back after the other adopted and succeeded; the TrainJob stays", async (mode) => {
    const config = configOf(mode)
    // The creator's owner patch is answered after 2 s, within the call timeout: meanwhile the second
    // Start adopts the TrainJob and succeeds (two GETs of it). The third GET on, the creator's read-back and
    // its retries, fail.
    const recorded = simOf({
      ...(mode === "kueue" ? { controllers: kueueQueues } : {}),
      faults: [
        { verb: "patch", resource: "trainingruntimes", nth: 1, action: { type: "delay", ms: 2_000 } },
        { verb: "get", resource: "trainjobs", nth: 3, times: RETRY_POLICY.tries, action: { type: "status", code: 500 } }
      ]
    })
    const exits = await runStartsTogether(recorded, backendOf(config), [requestOf(1), requestOf(1)])
    const won = successes(exits)
    expect(won).toHaveLength(1)
    expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([won[0]!.uid])
    const copy = recorded.sim.system.get("trainingruntimes", namespace, name1)
    expect(copy?.metadata?.["deletionTimestamp"]).toBeUndefined()
  })
})
