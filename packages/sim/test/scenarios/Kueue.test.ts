import { describe, expect, it } from "vitest"
import type { KubeObject } from "../../src/Api.ts"
import type { ControllerOptions } from "../../src/controllers/index.ts"
import { condition, create, get, list, mergePatch, simulator, specOf, statusOf, trainJob } from "../ControllersSim.ts"

const gate = "dispatch.example.org/start"
const queued = (name: string, extra: Record<string, unknown> = {}, gated = true): KubeObject =>
  trainJob(name, { suspend: false, ...extra }, {
    labels: { "kueue.x-k8s.io/queue-name": "team" },
    ...(gated ? { annotations: { "kueue.x-k8s.io/admission-gated-by": gate } } : {})
  })

const kueue = (queue: Record<string, unknown> = {}, rest: Record<string, unknown> = {}): ControllerOptions => ({
  trainer: { runTimeMs: 5000 },
  kueue: { queues: { team: { clusterQueue: "cluster-team", admissionChecks: ["capacity"], ...queue } }, ...rest }
})

const metadataOf = (object: KubeObject) => object["metadata"] as Record<string, unknown>
const nameOf = (object: KubeObject) => String(metadataOf(object)["name"])
const uidOf = (object: KubeObject) => String(metadataOf(object)["uid"])

const workloadFor = (sim: ReturnType<typeof simulator>, job: string): KubeObject | undefined => {
  const uid = uidOf(get(sim, "trainjobs", job))
  return list(sim, "workloads", `kueue.x-k8s.io/job-uid=${uid}`)[0]
}

const mustWorkload = (sim: ReturnType<typeof simulator>, job: string): KubeObject => {
  const workload = workloadFor(sim, job)
  expect(workload).toBeDefined()
  return workload as KubeObject
}

const setCheck = (sim: ReturnType<typeof simulator>, workload: string, state: string, extra: Record<string, unknown> = {}) =>
  expect(mergePatch(sim, "workloads", workload, {
    status: { admissionChecks: [{ name: "capacity", state, lastTransitionTime: new Date(sim.now()).toISOString().replace(".000Z", "Z"), message: `set ${state}`, ...extra }] }
  }, "status").code).toBe(200)

const openGate = (sim: ReturnType<typeof simulator>, workload: string) =>
  expect(mergePatch(sim, "workloads", workload, { metadata: { annotations: { "kueue.x-k8s.io/admission-gated-by": null } } }).code).toBe(200)

const kueuePatch = (job: KubeObject) =>
  ((specOf(job)["runtimePatches"] ?? []) as ReadonlyArray<Record<string, unknown>>).find((p) => p["manager"] === "kueue.x-k8s.io/manager")

/** Creates a gated job, waits for its Workload, opens the gate and readies the check. */
const admit = (sim: ReturnType<typeof simulator>, job: string): string => {
  expect(create(sim, "trainjobs", queued(job)).code).toBe(201)
  sim.advance(1000)
  const workload = nameOf(mustWorkload(sim, job))
  openGate(sim, workload)
  setCheck(sim, workload, "Ready")
  sim.advance(1000)
  return workload
}

describe("Kueue", () => {
  it("suspends a queued job and makes its Workload, gated, with its check Pending", () => {
    const sim = simulator(kueue())
    expect(create(sim, "trainjobs", queued("q1")).code).toBe(201)
    const job = get(sim, "trainjobs", "q1")
    expect(specOf(job)["suspend"]).toBe(true)
    sim.advance(1000)
    const workload = mustWorkload(sim, "q1")
    const metadata = metadataOf(workload)
    expect(metadata["name"]).toMatch(/^trainjob-q1-[0-9a-f]{5}$/)
    expect(metadata["labels"]).toMatchObject({ "kueue.x-k8s.io/job-uid": uidOf(job) })
    expect(metadata["annotations"]).toMatchObject({ "kueue.x-k8s.io/admission-gated-by": gate })
    expect(metadata["ownerReferences"]).toEqual([expect.objectContaining({ kind: "TrainJob", name: "q1", uid: uidOf(job), controller: true })])
    expect(specOf(workload)).toMatchObject({ queueName: "team", podSets: [expect.objectContaining({ name: "node", count: 1 })] })
    expect(statusOf(workload)?.["admissionChecks"]).toEqual([expect.objectContaining({ name: "capacity", state: "Pending" })])
    sim.advance(5000)
    const waiting = mustWorkload(sim, "q1")
    expect(condition(waiting, "QuotaReserved")).toMatchObject({ status: "False", reason: "AdmissionGated" })
    expect(condition(waiting, "Admitted")).toBeUndefined()
    expect(specOf(get(sim, "trainjobs", "q1"))["suspend"]).toBe(true)
    expect(get(sim, "admissionchecks", "capacity")).toMatchObject({ status: { conditions: [expect.objectContaining({ type: "Active", status: "True" })] } })
  })

  it("admits once the gate is gone and the check is Ready, then the job runs and its Workload finishes", () => {
    const sim = simulator(kueue())
    create(sim, "trainjobs", queued("q2"))
    sim.advance(1000)
    const workload = nameOf(mustWorkload(sim, "q2"))
    setCheck(sim, workload, "Ready", { podSetUpdates: [{ name: "node", nodeSelector: { pool: "a100" } }] })
    sim.advance(3000)
    expect(condition(get(sim, "workloads", workload), "Admitted")).toBeUndefined()
    openGate(sim, workload)
    sim.advance(1000)
    const admitted = get(sim, "workloads", workload)
    expect(condition(admitted, "QuotaReserved")).toMatchObject({ status: "True" })
    expect(condition(admitted, "Admitted")).toMatchObject({ status: "True", reason: "Admitted" })
    expect(statusOf(admitted)?.["admission"]).toMatchObject({ clusterQueue: "cluster-team", podSetAssignments: [expect.objectContaining({ name: "node", count: 1 })] })
    const job = get(sim, "trainjobs", "q2")
    expect(specOf(job)["suspend"]).toBe(false)
    expect(kueuePatch(job)).toMatchObject({
      trainingRuntimeSpec: { template: { spec: { replicatedJobs: [{ name: "node", template: { spec: { template: { spec: { nodeSelector: { pool: "a100" } } } } } }] } } }
    })
    sim.advance(1000)
    expect(condition(get(sim, "trainjobs", "q2"), "Suspended")).toMatchObject({ status: "False", reason: "Resumed" })
    sim.advance(6000)
    expect(condition(get(sim, "trainjobs", "q2"), "Complete")?.["status"]).toBe("True")
    expect(condition(get(sim, "workloads", workload), "Finished")).toMatchObject({ status: "True", reason: "Succeeded" })
  })

  it("evicts on Retry, suspends the job again, and admits it again when the check is Ready", () => {
    const sim = simulator(kueue())
    const workload = admit(sim, "q3")
    expect(specOf(get(sim, "trainjobs", "q3"))["suspend"]).toBe(false)
    sim.advance(1000)
    setCheck(sim, workload, "Retry")
    sim.advance(1000)
    const evicted = get(sim, "workloads", workload)
    expect(condition(evicted, "Evicted")).toMatchObject({ status: "True", reason: "AdmissionCheck" })
    expect(condition(evicted, "Admitted")).toMatchObject({ status: "False" })
    expect(statusOf(evicted)?.["admissionChecks"]).toEqual([expect.objectContaining({ name: "capacity", state: "Pending", retryCount: 1 })])
    const stopped = get(sim, "trainjobs", "q3")
    expect(specOf(stopped)["suspend"]).toBe(true)
    expect(kueuePatch(stopped)).toBeUndefined()
    sim.advance(5000)
    expect(specOf(get(sim, "trainjobs", "q3"))["suspend"]).toBe(true)
    expect(condition(get(sim, "trainjobs", "q3"), "Suspended")).toMatchObject({ status: "True" })

    setCheck(sim, workload, "Ready")
    sim.advance(1000)
    const again = get(sim, "workloads", workload)
    expect(condition(again, "Admitted")).toMatchObject({ status: "True" })
    expect(condition(again, "Evicted")).toMatchObject({ status: "False" })
    const resumed = get(sim, "trainjobs", "q3")
    expect(specOf(resumed)["suspend"]).toBe(false)
    expect(kueuePatch(resumed)).toBeDefined()
    sim.advance(7000)
    expect(condition(get(sim, "trainjobs", "q3"), "Complete")?.["status"]).toBe("True")
  })

  it("deactivates a Workload whose check is Rejected; the job stays suspended", () => {
    const sim = simulator(kueue())
    create(sim, "trainjobs", queued("q4"))
    sim.advance(1000)
    const workload = nameOf(mustWorkload(sim, "q4"))
    openGate(sim, workload)
    setCheck(sim, workload, "Rejected")
    sim.advance(2000)
    const deactivated = get(sim, "workloads", workload)
    expect(specOf(deactivated)["active"]).toBe(false)
    expect(condition(deactivated, "Evicted")).toMatchObject({ status: "True", reason: "DeactivatedDueToAdmissionCheck" })
    expect(condition(deactivated, "Admitted")?.["status"]).not.toBe("True")
    sim.advance(10_000)
    expect(specOf(get(sim, "trainjobs", "q4"))["suspend"]).toBe(true)
    expect(condition(get(sim, "trainjobs", "q4"), "Complete")).toBeUndefined()
  })

  it("stops a running job whose Workload is set inactive", () => {
    const sim = simulator({ ...kueue(), trainer: { runTimeMs: 60_000 } })
    const workload = admit(sim, "q5")
    sim.advance(2000)
    expect(mergePatch(sim, "workloads", workload, { spec: { active: false } }).code).toBe(200)
    sim.advance(1000)
    const stopped = get(sim, "workloads", workload)
    expect(condition(stopped, "Evicted")).toMatchObject({ status: "True", reason: "Deactivated" })
    expect(condition(stopped, "QuotaReserved")?.["status"]).toBe("False")
    expect(specOf(get(sim, "trainjobs", "q5"))["suspend"]).toBe(true)
    sim.advance(5000)
    expect(specOf(get(sim, "trainjobs", "q5"))["suspend"]).toBe(true)

    // Reactivated, it queues again; its check was reset on eviction and must be Ready once more.
    expect(mergePatch(sim, "workloads", workload, { spec: { active: true } }).code).toBe(200)
    sim.advance(2000)
    expect(condition(get(sim, "workloads", workload), "QuotaReserved")?.["status"]).toBe("True")
    expect(specOf(get(sim, "trainjobs", "q5"))["suspend"]).toBe(true)
    setCheck(sim, workload, "Ready")
    sim.advance(1000)
    expect(condition(get(sim, "workloads", workload), "Admitted")?.["status"]).toBe("True")
    expect(specOf(get(sim, "trainjobs", "q5"))["suspend"]).toBe(false)
  })

  it("holds a second Workload until the first one finishes, when the quota allows one", () => {
    const sim = simulator(kueue({ workloads: 1, admissionChecks: [] }))
    create(sim, "trainjobs", queued("first", {}, false))
    sim.advance(1000)
    create(sim, "trainjobs", queued("second", {}, false))
    sim.advance(2000)
    expect(condition(mustWorkload(sim, "first"), "Admitted")?.["status"]).toBe("True")
    expect(condition(mustWorkload(sim, "second"), "QuotaReserved")).toMatchObject({ status: "False", reason: "Pending" })
    expect(specOf(get(sim, "trainjobs", "second"))["suspend"]).toBe(true)
    sim.advance(5000)
    expect(condition(get(sim, "trainjobs", "first"), "Complete")?.["status"]).toBe("True")
    sim.advance(2000)
    expect(condition(mustWorkload(sim, "second"), "Admitted")?.["status"]).toBe("True")
    expect(specOf(get(sim, "trainjobs", "second"))["suspend"]).toBe(false)
  })

  it("counts GPUs against the queue's quota", () => {
    const sim = simulator(kueue({ gpus: 8, admissionChecks: [] }))
    const gpus = (n: number) => ({ trainer: { numNodes: 2, resourcesPerNode: { limits: { "nvidia.com/gpu": n } } } })
    create(sim, "trainjobs", queued("six", gpus(3), false))
    sim.advance(1000)
    create(sim, "trainjobs", queued("four", gpus(2), false))
    create(sim, "trainjobs", queued("two", gpus(1), false))
    sim.advance(2000)
    expect(condition(mustWorkload(sim, "six"), "Admitted")?.["status"]).toBe("True")
    expect(statusOf(mustWorkload(sim, "six"))?.["admission"]).toMatchObject({ podSetAssignments: [expect.objectContaining({ resourceUsage: { "nvidia.com/gpu": "6" } })] })
    expect(condition(mustWorkload(sim, "four"), "QuotaReserved")?.["status"]).toBe("False")
    expect(condition(mustWorkload(sim, "two"), "Admitted")?.["status"]).toBe("True")
  })

  it("suspends again a queued job that a client opens before admission", () => {
    const sim = simulator(kueue())
    create(sim, "trainjobs", queued("eager"))
    sim.advance(1000)
    expect(mergePatch(sim, "trainjobs", "eager", { spec: { suspend: false } }).code).toBe(200)
    sim.advance(1000)
    expect(specOf(get(sim, "trainjobs", "eager"))["suspend"]).toBe(true)
    sim.advance(10_000)
    expect(condition(get(sim, "trainjobs", "eager"), "Complete")).toBeUndefined()
  })

  it("gives each replicated job its own pod set, with numNodes pods for the trainer step", () => {
    const sim = simulator(kueue())
    create(sim, "trainjobs", queued("sets", { runtimeRef: { kind: "TrainingRuntime", name: "torch-with-cache" }, trainer: { numNodes: 3 } }))
    sim.advance(1000)
    expect(specOf(mustWorkload(sim, "sets"))["podSets"]).toEqual([
      expect.objectContaining({ name: "dataset-initializer", count: 1 }),
      expect.objectContaining({ name: "node", count: 3 })
    ])
  })

  it("loses the Workload with its TrainJob (owner reference)", () => {
    const sim = simulator(kueue())
    create(sim, "trainjobs", queued("gone"))
    sim.advance(1000)
    expect(list(sim, "workloads")).toHaveLength(1)
    const outcome = sim.handle({ verb: "delete", group: "trainer.kubeflow.org", version: "v1alpha1", resource: "trainjobs", namespace: "default", name: "gone" })
    expect(outcome.kind).toBe("answered")
    sim.advance(2000)
    expect(list(sim, "workloads")).toEqual([])
  })

  it("makes the Workload only after the configured delay", () => {
    const sim = simulator(kueue({}, { workloadDelayMs: 4000 }))
    create(sim, "trainjobs", queued("late"))
    sim.advance(3000)
    expect(workloadFor(sim, "late")).toBeUndefined()
    sim.advance(1000)
    expect(workloadFor(sim, "late")).toBeDefined()
  })

  it("leaves an unknown queue's Workload Inadmissible", () => {
    const sim = simulator(kueue())
    create(sim, "trainjobs", trainJob("lost", {}, { labels: { "kueue.x-k8s.io/queue-name": "nobody" } }))
    sim.advance(2000)
    expect(condition(mustWorkload(sim, "lost"), "QuotaReserved")).toMatchObject({ status: "False", reason: "Inadmissible" })
    expect(specOf(get(sim, "trainjobs", "lost"))["suspend"]).toBe(true)
  })

  it("refuses adding an admission gate after creation", () => {
    const sim = simulator(kueue())
    create(sim, "trainjobs", queued("gates"))
    const refused = mergePatch(sim, "trainjobs", "gates", { metadata: { annotations: { "kueue.x-k8s.io/admission-gated-by": `${gate},example.org/more` } } })
    expect(refused.code).toBeGreaterThanOrEqual(400)
    sim.advance(1000)
    const workload = nameOf(mustWorkload(sim, "gates"))
    const refusedOnWorkload = mergePatch(sim, "workloads", workload, { metadata: { annotations: { "kueue.x-k8s.io/admission-gated-by": `${gate},example.org/more` } } })
    expect(refusedOnWorkload.code).toBeGreaterThanOrEqual(400)
  })

  for (const [label, options] of [["no Kueue options", { trainer: { runTimeMs: 5000 } }], ["Kueue installed: false", kueue({}, { installed: false })]] as const) {
    it(`does nothing to queued jobs with ${label}`, () => {
      const sim = simulator(options)
      create(sim, "trainjobs", queued("observed", { suspend: true }))
      sim.advance(20_000)
      expect(list(sim, "workloads")).toEqual([])
      expect(specOf(get(sim, "trainjobs", "observed"))["suspend"]).toBe(true)
      expect(condition(get(sim, "trainjobs", "observed"), "Suspended")?.["status"]).toBe("True")
    })
  }
})
