import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { KubeObject } from "../src/Api.ts"
import { findCondition, isConditionTrue, readConditions } from "../src/controllers/shared/Conditions.ts"
import type { KueueQueueOptions } from "../src/controllers/Options.ts"
import { quotaShortfall, type QueueUsage } from "../src/controllers/kueue/Quota.ts"
import { formatTimestamp } from "../src/controllers/shared/Timestamps.ts"
import { decideWorkload, releasedStatus } from "../src/controllers/kueue/WorkloadDecisions.ts"

const now = 1_767_225_600_000
const stamp = formatTimestamp(now - 60_000)
const checkNames = ["ac-1", "ac-2"]
const state = fc.constantFrom("Pending", "Ready", "Retry", "Rejected")

const workloadArb = fc.record({
  gated: fc.boolean(),
  active: fc.boolean(),
  reserved: fc.boolean(),
  admitted: fc.boolean(),
  states: fc.tuple(state, state),
  gpusPerPod: fc.integer({ min: 0, max: 4 }),
  pods: fc.integer({ min: 1, max: 4 })
})
type WorkloadCase = typeof workloadArb extends fc.Arbitrary<infer A> ? A : never

const workloadOf = (c: WorkloadCase): KubeObject => ({
  metadata: { name: "wl", namespace: "default", ...(c.gated ? { annotations: { "kueue.x-k8s.io/admission-gated-by": "example.com/gate" } } : {}) },
  spec: {
    active: c.active,
    queueName: "q",
    podSets: [{ name: "node", count: c.pods, template: { spec: { containers: [{ name: "node", resources: { limits: { "nvidia.com/gpu": String(c.gpusPerPod) } } }] } } }]
  },
  status: {
    admissionChecks: checkNames.map((name, i) => ({ name, state: c.states[i], lastTransitionTime: stamp, message: "" })),
    conditions: [
      ...(c.reserved ? [{ type: "QuotaReserved", status: "True", reason: "QuotaReserved", message: "", lastTransitionTime: stamp }] : []),
      ...(c.reserved && c.admitted ? [{ type: "Admitted", status: "True", reason: "Admitted", message: "", lastTransitionTime: stamp }] : [])
    ]
  }
})

const queueArb = fc.record({
  gpus: fc.option(fc.integer({ min: 0, max: 16 }), { nil: undefined }),
  workloads: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined })
}).map((q): KueueQueueOptions => ({
  ...(q.gpus === undefined ? {} : { gpus: q.gpus }),
  ...(q.workloads === undefined ? {} : { workloads: q.workloads }),
  admissionChecks: checkNames
}))
const usageArb = fc.record({ gpus: fc.integer({ min: 0, max: 16 }), workloads: fc.integer({ min: 0, max: 3 }) })

const conditionsOf = (status: Record<string, unknown>) => readConditions(status["conditions"])

describe("quotaShortfall", () => {
  test.prop([queueArb, usageArb, usageArb, fc.integer({ min: 0, max: 8 })])("never lets more fit when more is already held", (queue, a, b, gpus) => {
    const less = { gpus: Math.min(a.gpus, b.gpus), workloads: Math.min(a.workloads, b.workloads) }
    const more = { gpus: Math.max(a.gpus, b.gpus), workloads: Math.max(a.workloads, b.workloads) }
    if (quotaShortfall(queue, more, gpus) === undefined) expect(quotaShortfall(queue, less, gpus)).toBeUndefined()
    if (queue.gpus === undefined && queue.workloads === undefined) expect(quotaShortfall(queue, more, gpus)).toBeUndefined()
  })
})

describe("decideWorkload", () => {
  test.prop([workloadArb, queueArb, usageArb])("reserves quota only without gates, when active, and when it fits", (c, queue, usage: QueueUsage) => {
    const decision = decideWorkload(workloadOf(c), queue, usage, now)
    if (decision.reserves) {
      expect(c.reserved).toBe(false)
      expect(c.gated).toBe(false)
      expect(c.active).toBe(true)
      expect(quotaShortfall(queue, usage, c.gpusPerPod * c.pods)).toBeUndefined()
      expect(decision.status["admission"]).toMatchObject({ clusterQueue: "q" })
    }
    const conditions = conditionsOf(decision.status)
    if (!c.reserved) expect(isConditionTrue(conditions, "QuotaReserved")).toBe(decision.reserves)
  })

  test.prop([workloadArb, queueArb, usageArb])("admits only with quota reserved and every check Ready", (c, queue, usage) => {
    const decision = decideWorkload(workloadOf(c), queue, usage, now)
    const conditions = conditionsOf(decision.status)
    if (isConditionTrue(conditions, "Admitted") && !c.admitted) {
      expect(isConditionTrue(conditions, "QuotaReserved")).toBe(true)
      expect(c.states.every((s) => s === "Ready")).toBe(true)
    }
  })

  test.prop([workloadArb, queueArb, usageArb])("Rejected deactivates, Retry on a reservation evicts", (c, queue, usage) => {
    const decision = decideWorkload(workloadOf(c), queue, usage, now)
    const evicted = findCondition(conditionsOf(decision.status), "Evicted")
    expect(decision.deactivate).toBe(c.active && c.states.includes("Rejected"))
    if (!c.active) expect(evicted).toMatchObject({ status: "True", reason: "Deactivated" })
    if (c.active && c.states.includes("Rejected")) {
      expect(findCondition(conditionsOf(decision.status), "DeactivationTarget")).toMatchObject({ status: "True", reason: "AdmissionCheck" })
    }
    if (c.active && !c.states.includes("Rejected") && c.states.includes("Retry") && c.reserved) {
      expect(evicted).toMatchObject({ status: "True", reason: "AdmissionCheck" })
      expect(findCondition(conditionsOf(decision.status), "Admitted")?.status).toBe("False")
    }
    if (evicted?.status === "True") {
      // The generated Workloads start unevicted: an eviction decided now sends every check back to Pending.
      expect((decision.status["admissionChecks"] as ReadonlyArray<{ state: string }>).every((check) => check.state === "Pending")).toBe(true)
    }
  })

  it("says why a workload waits", () => {
    const base: WorkloadCase = { gated: true, active: true, reserved: false, admitted: false, states: ["Pending", "Pending"], gpusPerPod: 2, pods: 2 }
    const gated = decideWorkload(workloadOf(base), { admissionChecks: checkNames }, { gpus: 0, workloads: 0 }, now)
    expect(findCondition(conditionsOf(gated.status), "QuotaReserved")).toMatchObject({ status: "False", reason: "AdmissionGated", message: "Admission is gated by: example.com/gate" })
    const full = decideWorkload(workloadOf({ ...base, gated: false }), { gpus: 4, admissionChecks: checkNames }, { gpus: 1, workloads: 1 }, now)
    expect(findCondition(conditionsOf(full.status), "QuotaReserved")).toMatchObject({ status: "False", reason: "Pending" })
    const lost = decideWorkload(workloadOf({ ...base, gated: false }), undefined, { gpus: 0, workloads: 0 }, now)
    expect(findCondition(conditionsOf(lost.status), "QuotaReserved")).toMatchObject({ reason: "Inadmissible", message: "LocalQueue q doesn't exist" })
  })

  it("adds the queue's checks as Pending and keeps recorded states", () => {
    const workload: KubeObject = { metadata: { name: "wl" }, spec: { queueName: "q", podSets: [] }, status: { admissionChecks: [{ name: "ac-2", state: "Ready", lastTransitionTime: stamp, message: "" }] } }
    const decision = decideWorkload(workload, { admissionChecks: checkNames, workloads: 0 }, { gpus: 0, workloads: 0 }, now)
    expect(decision.status["admissionChecks"]).toEqual([
      { name: "ac-1", state: "Pending", lastTransitionTime: formatTimestamp(now), message: "" },
      { name: "ac-2", state: "Ready", lastTransitionTime: stamp, message: "" }
    ])
  })
})

describe("eviction and release", () => {
  it("resets checks when evicting on Retry, then drops the admission and requeues once released", () => {
    const workload = workloadOf({ gated: false, active: true, reserved: true, admitted: true, states: ["Retry", "Ready"], gpusPerPod: 1, pods: 1 })
    const evicted = decideWorkload(workload, { admissionChecks: checkNames }, { gpus: 1, workloads: 1 }, now)
    expect(findCondition(conditionsOf(evicted.status), "Evicted")).toMatchObject({ reason: "AdmissionCheck", message: 'Evicted due to AdmissionCheck in Retry state: "ac-1"' })
    expect(evicted.status["admissionChecks"]).toEqual([
      { name: "ac-1", state: "Pending", lastTransitionTime: formatTimestamp(now), message: "Reset to Pending after eviction. Previously: Retry", retryCount: 1 },
      { name: "ac-2", state: "Pending", lastTransitionTime: formatTimestamp(now), message: "Reset to Pending after eviction. Previously: Ready" }
    ])
    expect(evicted.status["schedulingStats"]).toEqual({ evictions: [{ reason: "AdmissionCheck", underlyingCause: "", count: 1 }] })
    const released = releasedStatus({ ...workload, status: { ...evicted.status, admission: { clusterQueue: "q" } } }, now)
    const conditions = conditionsOf(released)
    expect(released["admission"]).toBeUndefined()
    expect(findCondition(conditions, "QuotaReserved")?.status).toBe("False")
    expect(findCondition(conditions, "Admitted")).toMatchObject({ status: "False", reason: "NoReservation" })
    expect(findCondition(conditions, "Requeued")).toMatchObject({ status: "True", reason: "AdmissionCheck" })
  })

  it("deactivates on Rejected in two steps, naming the check", () => {
    const workload = { ...workloadOf({ gated: false, active: true, reserved: true, admitted: true, states: ["Rejected", "Ready"], gpusPerPod: 0, pods: 1 }) }
    const marked = decideWorkload(workload, { admissionChecks: checkNames }, { gpus: 0, workloads: 1 }, now)
    expect(marked.deactivate).toBe(true)
    const inactive = { ...workload, spec: { ...(workload["spec"] as object), active: false }, status: marked.status }
    const evicted = decideWorkload(inactive, { admissionChecks: checkNames }, { gpus: 0, workloads: 1 }, now)
    const conditions = conditionsOf(evicted.status)
    expect(findCondition(conditions, "Evicted")).toMatchObject({
      status: "True",
      reason: "DeactivatedDueToAdmissionCheck",
      message: 'The workload is deactivated due to AdmissionCheck in Rejected state: "ac-1"'
    })
    expect(findCondition(conditions, "DeactivationTarget")).toBeUndefined()
    expect(evicted.deactivate).toBe(false)
    const released = conditionsOf(releasedStatus({ ...inactive, status: evicted.status }, now))
    expect(findCondition(released, "Requeued")).toMatchObject({ status: "False", reason: "DeactivatedDueToAdmissionCheck" })
  })
})
