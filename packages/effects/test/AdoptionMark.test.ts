// The two guarded deletes of the runtime copy, call by call: a copy that moved since it was seen is read
// and judged again (never deleted as seen), at most three times; what a re-read finds decides; and a copy
// marked, going, or owned by another TrainJob is never deleted.
import { Effect, type Exit, Layer } from "effect"
import { describe, expect, it } from "vitest"
import type { Manifests } from "@dispatch/render"
import type { SimulatorOptions } from "@dispatch/sim"
import { adoptionMark, deleteUnusedCopy, revokeCopy } from "../src/AdoptionMark.ts"
import { Cluster } from "../src/Cluster.ts"
import { ClusterError } from "../src/ClusterError.ts"
import type { KubeResource } from "../src/KubeObjects.ts"
import { TrainingRuntimes } from "../src/ResourceKind.ts"
import { SimCluster } from "@dispatch/sim/cluster"
import { configOf, namespace, runOnTestClock, simOf, torchRuntime, type RecordedSim } from "./StartFixture.ts"

const config = configOf("plain")
const name = "dj-copy-s1"
const manifests = { namespace, name } as Manifests
const jobUid = "trainjob-uid"

/** A simulator holding the copy, with `faults`. */
const withCopy = (faults: SimulatorOptions["faults"] = []): RecordedSim => {
  const recorded = simOf({ faults })
  const runtime = torchRuntime(name, "TrainingRuntime") as { metadata: Record<string, unknown> }
  recorded.sim.system.create("trainingruntimes", { ...runtime, metadata: { ...runtime.metadata, namespace } })
  return recorded
}

const stored = (recorded: RecordedSim) => recorded.sim.system.get("trainingruntimes", namespace, name)

/** Changes the stored copy (a new resourceVersion), as another writer would. */
const touch = (recorded: RecordedSim, metadata: Record<string, unknown>) => {
  const now = stored(recorded)!
  recorded.sim.system.update("trainingruntimes", { ...now, metadata: { ...now.metadata, ...metadata } })
}

const run = <A, E>(recorded: RecordedSim, effect: (seen: KubeResource) => Effect.Effect<A, E, Cluster>, before: (recorded: RecordedSim) => void = () => {}) =>
  runOnTestClock(
    Effect.gen(function* () {
      const seen = yield* Effect.orDie((yield* Cluster).get(TrainingRuntimes, { namespace, name }))
      before(recorded)
      recorded.calls.length = 0
      return yield* effect(seen)
    }).pipe(Effect.provide(Layer.fresh(SimCluster(recorded.face, { callMs: 1000 }))))
  )

const deletes = (recorded: RecordedSim) => recorded.calls.filter((c) => c.request.verb === "delete").length

const outcome = async <A, E>(exit: Promise<Exit.Exit<A, E>>) => {
  const done = await exit
  return done._tag === "Success" ? { value: done.value } : { failure: done.cause.reasons[0]?._tag === "Fail" ? (done.cause.reasons[0] as { error: E }).error : String(done.cause) }
}

for (const [which, guarded] of [
  ["deleteUnusedCopy", (seen: KubeResource) => deleteUnusedCopy(manifests, seen)],
  ["revokeCopy", (seen: KubeResource) => revokeCopy(config, manifests, seen, jobUid)]
] as const) {
  const done = which === "deleteUnusedCopy" ? "deleted" : "revoked"
  describe(which, () => {
    it("a copy without annotations, as seen: deleted with one call", async () => {
      const recorded = withCopy()
      expect(await outcome(run(recorded, guarded))).toEqual({ value: done })
      expect(stored(recorded)).toBeUndefined()
      expect(deletes(recorded)).toBe(1)
    })

    it("deletes with the uid and resourceVersion it saw as preconditions", async () => {
      const recorded = withCopy()
      const seen = stored(recorded)!
      expect(await outcome(run(recorded, guarded))).toEqual({ value: done })
      const body = recorded.calls[0]?.request.body as Record<string, unknown>
      expect(body["preconditions"]).toEqual({ uid: seen.metadata!["uid"], resourceVersion: seen.metadata!["resourceVersion"] })
      expect(body["propagationPolicy"]).toBe("Background")
    })

    it("a copy deleted since it was seen is done: the delete's NotFound is not a failure", async () => {
      const recorded = withCopy()
      expect(await outcome(run(recorded, guarded, (r) => r.sim.system.delete("trainingruntimes", namespace, name)))).toEqual({ value: done })
      expect(recorded.calls.map((c) => c.request.verb)).toEqual(["delete"])
    })

    it("a copy already going when seen is done without a call", async () => {
      const recorded = withCopy()
      touch(recorded, { finalizers: ["example.com/keep"] })
      recorded.sim.system.delete("trainingruntimes", namespace, name)
      expect(await outcome(run(recorded, guarded))).toEqual({ value: done })
      expect(recorded.calls).toEqual([])
    })

    it("a copy that moved since it was seen is read and deleted as it is now, with the read's resourceVersion", async () => {
      const recorded = withCopy()
      expect(await outcome(run(recorded, guarded, (r) => touch(r, { labels: { moved: "yes" } })))).toEqual({ value: done })
      expect(stored(recorded)).toBeUndefined()
      expect(recorded.calls.map((c) => c.request.verb)).toEqual(["delete", "get", "delete"])
    })

    it("a copy that keeps moving: three deletes, then the Conflict's reasons", async () => {
      const recorded = withCopy([{ verb: "delete", resource: "trainingruntimes", action: { type: "status", code: 409 } }])
      const result = await outcome(run(recorded, guarded))
      expect(deletes(recorded)).toBe(3)
      expect(JSON.stringify(result)).toContain("409")
      expect(stored(recorded)).toBeDefined()
    })

    it("a delete refused otherwise is not retried", async () => {
      const recorded = withCopy([{ verb: "delete", resource: "trainingruntimes", action: { type: "status", code: 422 } }])
      const result = await outcome(run(recorded, guarded))
      expect(result).toHaveProperty("failure")
      expect(recorded.calls.map((c) => c.request.verb)).toEqual(["delete"])
    })

    it("a delete meeting a passing fault (503) is tried again in place, and the copy goes", async () => {
      const recorded = withCopy([{ verb: "delete", resource: "trainingruntimes", nth: 1, action: { type: "status", code: 503 } }])
      expect(await outcome(run(recorded, guarded))).toEqual({ value: done })
      expect(recorded.calls.map((c) => c.request.verb)).toEqual(["delete", "delete"])
      expect(stored(recorded)).toBeUndefined()
    })

    it("after a Conflict, a copy gone by the re-read is done; a re-read that fails names its reasons", async () => {
      const gone = withCopy()
      const afterConflict = (r: RecordedSim) => r.sim.setFaults([{ verb: "delete", resource: "trainingruntimes", nth: 1, action: { type: "status", code: 409 } }, { verb: "get", resource: "trainingruntimes", action: { type: "status", code: 404 } }])
      expect(await outcome(run(gone, guarded, afterConflict))).toEqual({ value: done })
      expect(gone.calls.map((c) => c.request.verb)).toEqual(["delete", "get"])
      const unreadable = withCopy()
      const result = await outcome(run(unreadable, guarded, (r) => r.sim.setFaults([{ verb: "delete", resource: "trainingruntimes", nth: 1, action: { type: "status", code: 409 } }, { verb: "get", resource: "trainingruntimes", action: { type: "status", code: 500 } }])))
      expect(JSON.stringify(result)).toMatch(/get trainingruntimes.*500/)
      expect(stored(unreadable)).toBeDefined()
    })
  })
}

describe("deleteUnusedCopy: what the re-read finds", () => {
  it("a copy that gained an owner since it was seen is in use: kept", async () => {
    const recorded = withCopy()
    const owner = { apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", name, uid: jobUid }
    expect(await outcome(run(recorded, (seen) => deleteUnusedCopy(manifests, seen), (r) => touch(r, { ownerReferences: [owner] })))).toEqual({ value: "in-use" })
    expect(stored(recorded)).toBeDefined()
  })

  it("another copy of the name (another UID) is someone else's: the one seen is gone, the other kept", async () => {
    const recorded = withCopy()
    const replace = (r: RecordedSim) => {
      const old = stored(r)!
      r.sim.system.delete("trainingruntimes", namespace, name)
      const { uid: _uid, resourceVersion: _rv, creationTimestamp: _at, ...metadata } = old.metadata as Record<string, unknown>
      r.sim.system.create("trainingruntimes", { ...old, metadata })
      r.sim.setFaults([{ verb: "delete", resource: "trainingruntimes", nth: 1, action: { type: "status", code: 409 } }])
    }
    expect(await outcome(run(recorded, (seen) => deleteUnusedCopy(manifests, seen), replace))).toEqual({ value: "deleted" })
    expect(stored(recorded)).toBeDefined()
    expect(deletes(recorded)).toBe(1)
  })
})

describe("revokeCopy: copies it must leave", () => {
  it("marked for the TrainJob, going, or owned by another TrainJob: nothing is deleted", async () => {
    for (const [metadata, expected] of [
      [{ annotations: { [adoptionMark(config)]: jobUid } }, "adopted"],
      [{ finalizers: ["trainer.kubeflow.org/resource-in-use"] }, "revoked"],
      [{ ownerReferences: [{ apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", name, uid: "another-uid" }] }, "revoked"]
    ] as const) {
      const recorded = withCopy()
      touch(recorded, metadata)
      if ("finalizers" in metadata) recorded.sim.system.delete("trainingruntimes", namespace, name)
      expect(await outcome(run(recorded, (seen) => revokeCopy(config, manifests, seen, jobUid)))).toEqual({ value: expected })
      expect(recorded.calls).toEqual([])
      expect(stored(recorded)).toBeDefined()
    }
  })
})

describe("revokeCopy: what the re-read finds", () => {
  const replaceWith = (metadataOfNew: Record<string, unknown>) => (r: RecordedSim) => {
    const old = stored(r)!
    r.sim.system.delete("trainingruntimes", namespace, name)
    const { uid: _uid, resourceVersion: _rv, creationTimestamp: _at, ...metadata } = old.metadata as Record<string, unknown>
    r.sim.system.create("trainingruntimes", { ...old, metadata: { ...metadata, ...metadataOfNew } })
    r.sim.setFaults([{ verb: "delete", resource: "trainingruntimes", nth: 1, action: { type: "status", code: 409 } }])
  }
  it("another copy of the name is not deleted: a failure naming its uid, or adopted when an adopter of this TrainJob marked it", async () => {
    const replaced = withCopy()
    const result = await outcome(run(replaced, (seen) => revokeCopy(config, manifests, seen, jobUid), replaceWith({})))
    const other = stored(replaced)!.metadata!["uid"]
    expect(result).toEqual({ failure: [`the runtime copy was replaced by another (uid ${String(other)})`] })
    expect(deletes(replaced)).toBe(1)
    const marked = withCopy()
    expect(await outcome(run(marked, (seen) => revokeCopy(config, manifests, seen, jobUid), replaceWith({ annotations: { [adoptionMark(config)]: jobUid } })))).toEqual({ value: "adopted" })
    expect(stored(marked)).toBeDefined()
  })
  it("a delete refused otherwise names it as the first delete's failure", async () => {
    const recorded = withCopy([{ verb: "delete", resource: "trainingruntimes", action: { type: "status", code: 500 } }])
    const result = (await outcome(run(recorded, (seen) => revokeCopy(config, manifests, seen, jobUid)))) as { failure: ReadonlyArray<string> }
    expect(result.failure).toHaveLength(1)
    expect(result.failure[0]).toMatch(/^the runtime copy could not be deleted first: delete trainingruntimes .*500/)
  })
})

describe("revokeCopy: a re-read that fails", () => {
  it("names every reason of the read's failure", async () => {
    const recorded = withCopy()
    const conflict = new ClusterError({ reason: "Conflict", call: `delete trainingruntimes ${namespace}/${name}` })
    const unreadable = new ClusterError({ reason: "ServerError", call: `get trainingruntimes ${namespace}/${name}`, status: { code: 500, reason: "InternalError", message: "etcd is unavailable", causes: [{ message: "leader changed" }] } })
    const failing = (seen: KubeResource) =>
      Effect.flatMap(Cluster, (cluster) =>
        Effect.provideService(revokeCopy(config, manifests, seen, jobUid), Cluster, { ...cluster, delete: () => Effect.fail(conflict), get: () => Effect.fail(unreadable) })
      )
    expect(unreadable.reasons).toHaveLength(2)
    expect(await outcome(run(recorded, failing))).toEqual({ failure: [`the runtime copy could not be read: ${unreadable.reasons.join("; ")}`] })
  })
})
