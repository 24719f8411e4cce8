import { fc, test } from "@fast-check/vitest"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { Cluster, type ClusterShape } from "../../src/Cluster.ts"
import type { KubeResource } from "../../src/KubeObjects.ts"
import { belongsTo, jobWorkloads, readWorkload, workloadFor } from "../../src/lifecycle/JobReads.ts"
import { jobId } from "../StartFixture.ts"
import { inProcess, lifecycleConfig } from "./LifecycleFixture.ts"

const config = lifecycleConfig("plain", inProcess.timing)
const uid = fc.constantFrom("u1", "u2", "u3")
const workload = fc.record({ uid, deleting: fc.boolean(), n: fc.nat(99) }).map(
  ({ uid: u, deleting, n }): KubeResource => ({
    apiVersion: "kueue.x-k8s.io/v1beta1",
    kind: "Workload",
    metadata: { name: `w${n}`, labels: { "kueue.x-k8s.io/job-uid": u }, ...(deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}) }
  })
)

describe("workloadFor", () => {
  test.prop([fc.array(workload, { maxLength: 6 }), fc.option(uid, { nil: undefined })])("picks a live Workload labelled with the TrainJob's UID, if there is one", (all, u) => {
    const picked = workloadFor(all, u)
    const candidates = all.filter((w) => u !== undefined && w.metadata.labels?.["kueue.x-k8s.io/job-uid"] === u && w.metadata.deletionTimestamp === undefined)
    if (candidates.length === 0) expect(picked).toBeUndefined()
    else expect(candidates).toContain(picked)
  })
})

describe("belongsTo", () => {
  test.prop([fc.nat(1000), fc.nat(1000), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 5 })])("an object is the job's exactly when both identity labels match", (a, b, s, t) => {
    const object: KubeResource = {
      apiVersion: "trainer.kubeflow.org/v1alpha1",
      kind: "TrainJob",
      metadata: { name: "x", labels: { "dispatch.phpboyscout.uk/job-id": jobId(a), "dispatch.phpboyscout.uk/submission": String(s) } }
    }
    const objects = { key: { job: jobId(b), submission: t }, namespace: "default", name: "x" }
    expect(belongsTo(config, objects, object)).toBe(a === b && s === t)
  })
})

describe("jobWorkloads and readWorkload in plain mode", () => {
  // A Cluster whose every call dies: plain mode has no Workloads to read, so it must not ask.
  const noCalls = new Proxy({}, { get: () => () => Effect.die("plain mode read the cluster") }) as unknown as ClusterShape
  const trainJob: KubeResource = { apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", metadata: { name: "dj-x-s1", namespace: "default", uid: "u1" } }
  it("reads nothing from the cluster", async () => {
    const objects = { namespace: "default", name: "dj-x-s1" } as Parameters<typeof jobWorkloads>[1]
    await expect(Effect.runPromise(Effect.provideService(jobWorkloads(config, objects, undefined), Cluster, noCalls))).resolves.toEqual([])
    await expect(Effect.runPromise(Effect.provideService(readWorkload(config, trainJob), Cluster, noCalls))).resolves.toBeUndefined()
  })
})
