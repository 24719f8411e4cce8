// A TrainJob's status comes from below, as on a real cluster: the kubelet ends pods, the Job controller
// derives each Job's conditions from its pods (backoff limit, active deadline), the JobSet controller the
// JobSet's from its Jobs, and Trainer the TrainJob's from its JobSet. Time is the simulator's clock.
import { fc, test as propTest } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { KubeObject } from "../../src/Api.ts"
import { ChangeQueue } from "../../src/controllers/shared/ChangeQueue.ts"
import { condition, create, get, list, mergePatch, plainRuntime, simulator, specOf, statusOf, trainJob } from "../ControllersSim.ts"

const nameOf = (o: KubeObject) => String((o.metadata as Record<string, unknown>)["name"])
const podsOf = (sim: ReturnType<typeof simulator>, job: string) =>
  list(sim, "pods", `batch.kubernetes.io/job-name=${job}`)

// What a node that lost the pod's container reports: the pod failed with exit 2.
const failPod = (sim: ReturnType<typeof simulator>, pod: KubeObject) => {
  const status = statusOf(pod) ?? {}
  const containerStatuses = (status["containerStatuses"] as Array<Record<string, unknown>>).map((c) => ({
    ...c,
    ready: false,
    state: { terminated: { exitCode: 2, reason: "Error", startedAt: "2026-01-01T00:00:00Z", finishedAt: "2026-01-01T00:00:01Z" } }
  }))
  expect(mergePatch(sim, "pods", nameOf(pod), { status: { phase: "Failed", containerStatuses } }, "status").code).toBe(200)
}

// The plain runtime, named `name`, its trainer Job carrying the given Job spec fields.
const runtimeWith = (name: string, jobSpec: Record<string, unknown>): KubeObject => {
  type Spec = { template: { spec: { replicatedJobs: Array<{ template: { spec: Record<string, unknown> } }> } } }
  const spec = plainRuntime["spec"] as Spec
  const replicatedJobs = spec.template.spec.replicatedJobs.map((r) => ({ ...r, template: { ...r.template, spec: { ...r.template.spec, ...jobSpec } } }))
  return { ...plainRuntime, metadata: { name }, spec: { ...spec, template: { ...spec.template, spec: { ...spec.template.spec, replicatedJobs } } } }
}

describe("a TrainJob's conditions follow its pods", () => {
  it("fails when its pod fails, long before its scripted run time, with the JobSet's reason", () => {
    const sim = simulator({ trainer: { runTimeMs: 60_000 } })
    create(sim, "trainjobs", trainJob("lost"))
    sim.advance(1000)
    const [pod] = podsOf(sim, "lost-node-0")
    expect(statusOf(pod as KubeObject)?.["phase"]).toBe("Running")
    failPod(sim, pod as KubeObject)
    sim.advance(1000)
    expect(condition(get(sim, "jobs", "lost-node-0"), "Failed")).toMatchObject({ status: "True", reason: "BackoffLimitExceeded" })
    expect(condition(get(sim, "jobsets", "lost"), "Failed")).toMatchObject({ status: "True", reason: "FailedJobs" })
    const failed = get(sim, "trainjobs", "lost")
    expect(condition(failed, "Failed")).toMatchObject({ status: "True", reason: "FailedJobs", message: "jobset failed due to one or more job failures" })
    expect(statusOf(failed)?.["jobsStatus"]).toEqual([{ name: "node", active: 0, ready: 0, succeeded: 0, failed: 1, suspended: 0 }])
  })

  it("completes in the step its pods exit, and only then, with every Job and the JobSet complete", () => {
    const sim = simulator({ trainer: { runTimeMs: 3000 } })
    create(sim, "trainjobs", trainJob("done"))
    sim.advance(2000)
    expect(condition(get(sim, "trainjobs", "done"), "Complete")).toBeUndefined()
    expect(podsOf(sim, "done-node-0").map((p) => statusOf(p)?.["phase"])).toEqual(["Running"])
    sim.advance(1000)
    expect(podsOf(sim, "done-node-0").map((p) => statusOf(p)?.["phase"])).toEqual(["Succeeded"])
    expect(condition(get(sim, "jobs", "done-node-0"), "Complete")).toMatchObject({ status: "True" })
    expect(condition(get(sim, "jobsets", "done"), "Completed")).toMatchObject({ status: "True", reason: "AllJobsCompleted" })
    expect(condition(get(sim, "trainjobs", "done"), "Complete")).toMatchObject({ status: "True", reason: "AllJobsCompleted", message: "jobset completed successfully" })
  })

  it("gives a failed index a new pod while the Job's backoffLimit allows, then fails the Job", () => {
    const sim = simulator({ trainer: { runTimeMs: 60_000 } })
    expect(create(sim, "clustertrainingruntimes", runtimeWith("retrying", { backoffLimit: 1 })).code).toBe(201)
    create(sim, "trainjobs", trainJob("retry", { runtimeRef: { name: "retrying" } }))
    sim.advance(1000)
    failPod(sim, podsOf(sim, "retry-node-0")[0] as KubeObject)
    sim.advance(1000)
    const pods = podsOf(sim, "retry-node-0")
    expect(pods.map((p) => statusOf(p)?.["phase"]).sort()).toEqual(["Failed", "Running"])
    expect(condition(get(sim, "jobs", "retry-node-0"), "Failed")).toBeUndefined()
    expect(condition(get(sim, "trainjobs", "retry"), "Failed")).toBeUndefined()
    failPod(sim, pods.find((p) => statusOf(p)?.["phase"] === "Running") as KubeObject)
    sim.advance(1000)
    expect(statusOf(get(sim, "jobs", "retry-node-0"))).toMatchObject({ failed: 2, active: 0 })
    expect(condition(get(sim, "jobs", "retry-node-0"), "Failed")).toMatchObject({ status: "True", reason: "BackoffLimitExceeded" })
    expect(condition(get(sim, "trainjobs", "retry"), "Failed")).toMatchObject({ status: "True", reason: "FailedJobs" })
  })

  it("fails a Job active past its activeDeadlineSeconds, deleting its running pods, and the TrainJob with it", () => {
    const sim = simulator({ trainer: { runTimeMs: 60_000 } })
    expect(create(sim, "clustertrainingruntimes", runtimeWith("bounded", { activeDeadlineSeconds: 3 })).code).toBe(201)
    create(sim, "trainjobs", trainJob("slow", { runtimeRef: { name: "bounded" } }))
    sim.advance(3000)
    expect(condition(get(sim, "jobs", "slow-node-0"), "Failed")).toBeUndefined()
    sim.advance(1000)
    expect(condition(get(sim, "jobs", "slow-node-0"), "Failed")).toMatchObject({ status: "True", reason: "DeadlineExceeded" })
    expect(podsOf(sim, "slow-node-0")).toEqual([])
    expect(condition(get(sim, "trainjobs", "slow"), "Failed")).toMatchObject({ status: "True", reason: "FailedJobs" })
    expect(specOf(get(sim, "jobs", "slow-node-0"))["activeDeadlineSeconds"]).toBe(3)
  })
})

describe("ChangeQueue's timers", () => {
  propTest.prop([fc.array(fc.tuple(fc.constantFrom("a", "b", "c", "d"), fc.integer({ min: 0, max: 100 })), { maxLength: 20 }), fc.array(fc.integer({ min: 0, max: 120 }), { maxLength: 10 })])(
    "hand out each key once, at the first drain at or after its last due time",
    (timers, drains) => {
      const queue = new ChangeQueue()
      const due = new Map<string, number>()
      for (const [key, at] of timers) {
        queue.addAt(key, at)
        due.set(key, at)
      }
      const times = [...drains].sort((x, y) => x - y)
      for (const now of times) {
        const expected = [...due].filter(([, at]) => at <= now).map(([key]) => key).sort()
        for (const key of expected) due.delete(key)
        expect([...queue.drain(now)].sort()).toEqual(expected)
        expect(queue.dueAt()).toBe(due.size === 0 ? Number.POSITIVE_INFINITY : Math.min(...due.values()))
      }
    }
  )
})
