// The laws of Find's classification, over arbitrary TrainJobs, Workloads and InFlight memories.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { HOLD_MESSAGE } from "../../src/lifecycle/AdmissionChecks.ts"
import { jobState, type Observed, admissionGatesOf } from "../../src/lifecycle/JobState.ts"

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

// Find's reasons, which a user reads to know what a job waits for (`dispatch find` prints them), and the
// edges of the running rule that JobState.test.ts's properties draw too rarely: counts that are not
// numbers, only ready pods, a create exactly CallBound old.
describe("Find's reasons and the running rule's edges", () => {
  // The edges are drawn in Kueue mode unless a case says otherwise.
  const inKueue = (over: Partial<Observed>): Observed => observed({ mode: "kueue", ...over })

  const trainJob = (spec: Record<string, unknown>, jobsStatus: ReadonlyArray<Record<string, unknown>> = []) => ({ metadata: { name: "dj-x-s1" }, spec, status: { jobsStatus } })

  const condition = (type: string, status: string, message: string) => ({ type, status, reason: type, message })

  const workload = (over: { gates?: ReadonlyArray<string>; entry?: Record<string, unknown>; conditions?: ReadonlyArray<unknown> } = {}) => ({
    metadata: { name: "w", annotations: over.gates === undefined ? {} : { "kueue.x-k8s.io/admission-gated-by": over.gates.join(",") } },
    status: { conditions: over.conditions ?? [], admissionChecks: over.entry === undefined ? [] : [{ name: check, ...over.entry }] }
  })

  describe("Find's reasons", () => {
    it("plain mode: a suspended job is Held and says how to let it run; an opened one without pods says so", () => {
      expect(jobState(inKueue({ mode: "plain", trainJob: trainJob({ suspend: true }) }))).toEqual({ state: "Held", reason: "spec.suspend is true: Open or Release it" })
      expect(jobState(inKueue({ mode: "plain", trainJob: trainJob({ suspend: false }) }))).toEqual({ state: "Queued", reason: "not suspended, but no pod is active yet" })
    })

    it("kueue mode: each hold names what holds the job and which operation lifts it", () => {
      const suspended = trainJob({ suspend: true })
      expect(jobState(inKueue({ trainJob: suspended }))).toEqual({ state: "Held", reason: "Kueue has not made the TrainJob's Workload yet; it is created with dispatch's gate" })
      expect(jobState(inKueue({ trainJob: suspended, workload: workload({ gates: ["other/gate", gate] }) }))).toEqual({
        state: "Held",
        reason: `the Workload carries dispatch's gate ${gate}: Open it`
      })
      const released = `dispatch holds the admission check ${check}: Release it`
      expect(jobState(inKueue({ trainJob: suspended, workload: workload({ entry: { state: "Pending", message: HOLD_MESSAGE } }) }))).toEqual({ state: "Held", reason: released })
      expect(jobState(inKueue({ trainJob: suspended, workload: workload({ entry: { state: "Retry", message: "" } }) }))).toEqual({ state: "Held", reason: released })
    })

    it("kueue mode: another controller's gate or check does not make the job Held by dispatch", () => {
      const suspended = trainJob({ suspend: true })
      expect(jobState(inKueue({ trainJob: suspended, workload: workload({ gates: ["other/gate"] }) })).state).toBe("Queued")
      const otherCheck = { ...workload(), status: { conditions: [], admissionChecks: [{ name: "other-check", state: "Retry", message: HOLD_MESSAGE }] } }
      expect(jobState(inKueue({ trainJob: suspended, workload: otherCheck })).state).toBe("Queued")
      // Without an admission check in the config, no check entry holds the job.
      expect(jobState(inKueue({ trainJob: suspended, workload: workload({ entry: { state: "Retry" } }), check: undefined })).state).toBe("Queued")
      // Not even an entry without a name, which a search for an unset name would find.
      const nameless = { ...workload(), status: { conditions: [], admissionChecks: [{ state: "Pending", message: HOLD_MESSAGE }] } }
      expect(jobState(inKueue({ trainJob: suspended, workload: nameless, check: undefined })).state).toBe("Queued")
    })

    it("kueue mode: Queued says why Kueue has not admitted it, preferring Admitted's message, then QuotaReserved's", () => {
      const suspended = trainJob({ suspend: true })
      const queued = (conditions: ReadonlyArray<unknown>) => jobState(inKueue({ trainJob: suspended, workload: workload({ conditions }) }))
      expect(queued([])).toEqual({ state: "Queued", reason: "Kueue has not admitted the Workload" })
      expect(queued([condition("QuotaReserved", "False", "couldn't assign flavors to pod set trainer: insufficient quota")])).toEqual({
        state: "Queued",
        reason: "couldn't assign flavors to pod set trainer: insufficient quota"
      })
      expect(queued([condition("QuotaReserved", "True", "Quota reserved in ClusterQueue cq"), condition("Admitted", "False", "The workload has not all checks ready")])).toEqual({
        state: "Queued",
        reason: "The workload has not all checks ready"
      })
      // An empty Admitted message falls back to QuotaReserved's.
      expect(queued([condition("QuotaReserved", "False", "waiting for quota"), condition("Admitted", "False", "")])).toEqual({ state: "Queued", reason: "waiting for quota" })
      expect(queued([condition("Admitted", "True", "The workload is admitted")])).toEqual({ state: "Queued", reason: "admitted; no pod is active yet" })
    })

    it("kueue mode: an admitted, unsuspended job with pods is Running; while Kueue keeps it suspended it is not", () => {
      const admitted = workload({ conditions: [condition("Admitted", "True", "")] })
      expect(jobState(inKueue({ trainJob: trainJob({ suspend: false }, [{ active: 1 }]), workload: admitted }))).toEqual({ state: "Running" })
      expect(jobState(inKueue({ trainJob: trainJob({ suspend: true }, [{ active: 1 }]), workload: admitted }))).toEqual({ state: "Queued", reason: "admitted; no pod is active yet" })
    })
  })

  describe("the running rule", () => {
    const plain = (jobsStatus: ReadonlyArray<Record<string, unknown>>) => jobState(inKueue({ mode: "plain", trainJob: trainJob({ suspend: false }, jobsStatus) })).state

    it("counts a pod that is only ready, or only active, and ignores counts that are not positive numbers", () => {
      expect(plain([{ active: 0, ready: 1 }])).toBe("Running")
      expect(plain([{ active: 1, ready: 0 }])).toBe("Running")
      expect(plain([{ active: 0, ready: 0 }, { ready: 2 }])).toBe("Running")
      expect(plain([{ active: "1", ready: "1" }])).toBe("Queued")
      expect(plain([{ active: -1, ready: 0 }])).toBe("Queued")
      expect(plain([])).toBe("Queued")
    })

    it("an unanswered create exactly CallBound old can no longer land: Absent, not InFlight", () => {
      expect(jobState(inKueue({ inFlightAtMs: 1000, nowMs: 1999, callBoundMs: 1000 }))).toEqual({ state: "InFlight", sinceMs: 1000, untilMs: 2000 })
      expect(jobState(inKueue({ inFlightAtMs: 1000, nowMs: 2000, callBoundMs: 1000 }))).toEqual({ state: "Absent" })
    })

    it("a finished job's condition must be True: a False Complete or Failed does not finish it", () => {
      const job = { ...trainJob({ suspend: false }), status: { conditions: [condition("Complete", "False", ""), condition("Failed", "False", "")], jobsStatus: [] } }
      expect(jobState(inKueue({ mode: "plain", trainJob: job })).state).toBe("Queued")
    })
  })

  describe("admissionGatesOf", () => {
    it("lists the gates of the admission-gated-by annotation, and none without it", () => {
      expect(admissionGatesOf(workload({ gates: ["a/b", gate] }))).toEqual(["a/b", gate])
      expect(admissionGatesOf(workload())).toEqual([])
      expect(admissionGatesOf(undefined)).toEqual([])
    })
  })
})
