// The laws of Find's classification, over arbitrary TrainJobs, Workloads and InFlight memories.
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { HOLD_MESSAGE } from "../../src/lifecycle/AdmissionChecks.ts"
import { jobState, type Observed } from "../../src/lifecycle/JobState.ts"

const gate = "dispatch.example/start"
const check = "dispatch-check"

interface JobShape {
  readonly deleting: boolean
  readonly complete: string | undefined
  readonly failed: { reason: string; message: string } | undefined
  readonly suspend: boolean | undefined
  readonly pods: ReadonlyArray<{ active: number; ready: number }>
}

const jobShape: fc.Arbitrary<JobShape> = fc.record({
  deleting: fc.boolean(),
  complete: fc.option(fc.constantFrom("AllJobsCompleted", "Done"), { nil: undefined }),
  failed: fc.option(fc.record({ reason: fc.constantFrom("DeadlineExceeded", "FailedJobs"), message: fc.string() }), { nil: undefined }),
  suspend: fc.option(fc.boolean(), { nil: undefined }),
  pods: fc.array(fc.record({ active: fc.nat(3), ready: fc.nat(3) }), { maxLength: 3 })
})

const condition = (type: string, reason: string, message = "") => ({ type, status: "True", reason, message, lastTransitionTime: "2026-01-01T00:00:00Z" })

const trainJobOf = (s: JobShape): unknown => ({
  metadata: { name: "dj-x-s1", ...(s.deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}) },
  spec: s.suspend === undefined ? {} : { suspend: s.suspend },
  status: {
    conditions: [
      ...(s.complete === undefined ? [] : [condition("Complete", s.complete)]),
      ...(s.failed === undefined ? [] : [condition("Failed", s.failed.reason, s.failed.message)])
    ],
    jobsStatus: s.pods.map((p, i) => ({ name: `j${i}`, active: p.active, ready: p.ready, succeeded: 0, failed: 0, suspended: 0 }))
  }
})

interface WorkloadShape {
  readonly gates: ReadonlyArray<string>
  readonly entry: { state: string; message: string } | undefined
  readonly admitted: boolean
}

const workloadShape: fc.Arbitrary<WorkloadShape | undefined> = fc.option(
  fc.record({
    gates: fc.subarray([gate, "other.example/gate"]),
    entry: fc.option(fc.record({ state: fc.constantFrom("Pending", "Ready", "Retry", "Rejected"), message: fc.constantFrom(HOLD_MESSAGE, "", "Reset to Pending after eviction") }), { nil: undefined }),
    admitted: fc.boolean()
  }),
  { nil: undefined }
)

const workloadOf = (w: WorkloadShape | undefined): unknown =>
  w === undefined
    ? undefined
    : {
        metadata: { name: "trainjob-dj-x-s1-abcde", annotations: w.gates.length === 0 ? {} : { "kueue.x-k8s.io/admission-gated-by": w.gates.join(",") } },
        status: {
          conditions: w.admitted ? [condition("Admitted", "Admitted")] : [],
          admissionChecks: w.entry === undefined ? [] : [{ name: check, ...w.entry, lastTransitionTime: "2026-01-01T00:00:00Z" }]
        }
      }

const observed = (over: Partial<Observed>): Observed => ({
  mode: "plain",
  trainJob: undefined,
  workload: undefined,
  inFlightAtMs: undefined,
  nowMs: 0,
  callBoundMs: 1000,
  admissionGate: gate,
  check,
  ...over
})

const liveShape = jobShape.map((s): JobShape => ({ ...s, deleting: false, complete: undefined, failed: undefined }))
const hasPods = (s: JobShape) => s.pods.some((p) => p.active > 0 || p.ready > 0)
const mode = fc.constantFrom("plain" as const, "kueue" as const)

describe("jobState", () => {
  test.prop([mode, fc.option(fc.nat(10_000), { nil: undefined }), fc.nat(20_000), fc.integer({ min: 1, max: 10_000 })])(
    "without a TrainJob: InFlight exactly while the unanswered create is younger than CallBound, else Absent",
    (m, at, now, bound) => {
      const state = jobState(observed({ mode: m, inFlightAtMs: at, nowMs: now, callBoundMs: bound }))
      if (at !== undefined && now - at < bound) expect(state).toEqual({ state: "InFlight", sinceMs: at, untilMs: at + bound })
      else expect(state).toEqual({ state: "Absent" })
    }
  )

  test.prop([mode, jobShape, workloadShape, fc.option(fc.nat(10), { nil: undefined })])("with a TrainJob: never Absent or InFlight, whatever InFlight remembers", (m, s, w, at) => {
    const state = jobState(observed({ mode: m, trainJob: trainJobOf(s), workload: workloadOf(w), inFlightAtMs: at }))
    expect(["Absent", "InFlight"]).not.toContain(state.state)
  })

  test.prop([mode, jobShape, workloadShape])("a deletionTimestamp is Stopping, whatever else the job says", (m, s, w) => {
    expect(jobState(observed({ mode: m, trainJob: trainJobOf({ ...s, deleting: true }), workload: workloadOf(w) }))).toEqual({ state: "Stopping" })
  })

  test.prop([mode, jobShape, workloadShape])("Trainer's Complete and Failed conditions decide a finished job, with their reasons", (m, s, w) => {
    fc.pre(!s.deleting && (s.complete !== undefined || s.failed !== undefined))
    const state = jobState(observed({ mode: m, trainJob: trainJobOf(s), workload: workloadOf(w) }))
    if (s.complete !== undefined) expect(state).toEqual({ state: "Succeeded", reason: s.complete })
    else expect(state).toEqual({ state: "Failed", reason: s.failed!.reason, message: s.failed!.message })
  })

  test.prop([liveShape, workloadShape])("plain mode: suspended is Held; otherwise Running exactly when a pod is active or ready", (s, w) => {
    const state = jobState(observed({ mode: "plain", trainJob: trainJobOf(s), workload: workloadOf(w) }))
    if (s.suspend === true) expect(state.state).toBe("Held")
    else expect(state.state).toBe(hasPods(s) ? "Running" : "Queued")
    // The Workload is Kueue's: plain mode never looks at it.
    expect(jobState(observed({ mode: "plain", trainJob: trainJobOf(s) }))).toEqual(state)
  })

  test.prop([liveShape, workloadShape])("kueue mode: Held while the gate is on, dispatch's check holds, or no Workload exists for a suspended job; else Running or Queued", (s, w) => {
    const state = jobState(observed({ mode: "kueue", trainJob: trainJobOf(s), workload: workloadOf(w) }))
    const heldEntry = w?.entry !== undefined && (w.entry.state === "Retry" || (w.entry.state === "Pending" && w.entry.message === HOLD_MESSAGE))
    if ((w === undefined && s.suspend === true) || (w !== undefined && (w.gates.includes(gate) || heldEntry))) expect(state.state).toBe("Held")
    else expect(state.state).toBe(s.suspend !== true && hasPods(s) ? "Running" : "Queued")
  })

  test.prop([liveShape])("kueue mode: a running job whose only Workload is being deleted (none live) is Running, not Held", (s) => {
    fc.pre(s.suspend !== true && hasPods(s))
    expect(jobState(observed({ mode: "kueue", trainJob: trainJobOf(s), workload: undefined })).state).toBe("Running")
  })
})
