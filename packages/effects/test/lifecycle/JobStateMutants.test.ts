// Find's reasons, which a user reads to know what a job waits for (`dispatch find` prints them), and the
// edges of the running rule that JobState.test.ts's properties draw too rarely: counts that are not
// numbers, only ready pods, a create exactly CallBound old.
import { describe, expect, it } from "vitest"
import { HOLD_MESSAGE } from "../../src/lifecycle/AdmissionChecks.ts"
import { admissionGatesOf, jobState, type Observed } from "../../src/lifecycle/JobState.ts"

const gate = "dispatch.example/start"
const check = "dispatch-check"

const observed = (over: Partial<Observed>): Observed => ({
  mode: "kueue",
  trainJob: undefined,
  workload: undefined,
  inFlightAtMs: undefined,
  nowMs: 0,
  callBoundMs: 1000,
  admissionGate: gate,
  check,
  ...over
})

const trainJob = (spec: Record<string, unknown>, jobsStatus: ReadonlyArray<Record<string, unknown>> = []) => ({ metadata: { name: "dj-x-s1" }, spec, status: { jobsStatus } })

const condition = (type: string, status: string, message: string) => ({ type, status, reason: type, message })

const workload = (over: { gates?: ReadonlyArray<string>; entry?: Record<string, unknown>; conditions?: ReadonlyArray<unknown> } = {}) => ({
  metadata: { name: "w", annotations: over.gates === undefined ? {} : { "kueue.x-k8s.io/admission-gated-by": over.gates.join(",") } },
  status: { conditions: over.conditions ?? [], admissionChecks: over.entry === undefined ? [] : [{ name: check, ...over.entry }] }
})

describe("Find's reasons", () => {
  it("plain mode: a suspended job is Held and says how to let it run; an opened one without pods says so", () => {
    expect(jobState(observed({ mode: "plain", trainJob: trainJob({ suspend: true }) }))).toEqual({ state: "Held", reason: "spec.suspend is true: Open or Release it" })
    expect(jobState(observed({ mode: "plain", trainJob: trainJob({ suspend: false }) }))).toEqual({ state: "Queued", reason: "not suspended, but no pod is active yet" })
  })

  it("kueue mode: each hold names what holds the job and which operation lifts it", () => {
    const suspended = trainJob({ suspend: true })
    expect(jobState(observed({ trainJob: suspended }))).toEqual({ state: "Held", reason: "Kueue has not made the TrainJob's Workload yet; it is created with dispatch's gate" })
    expect(jobState(observed({ trainJob: suspended, workload: workload({ gates: ["other/gate", gate] }) }))).toEqual({
      state: "Held",
      reason: `the Workload carries dispatch's gate ${gate}: Open it`
    })
    const released = `dispatch holds the admission check ${check}: Release it`
    expect(jobState(observed({ trainJob: suspended, workload: workload({ entry: { state: "Pending", message: HOLD_MESSAGE } }) }))).toEqual({ state: "Held", reason: released })
    expect(jobState(observed({ trainJob: suspended, workload: workload({ entry: { state: "Retry", message: "" } }) }))).toEqual({ state: "Held", reason: released })
  })

  it("kueue mode: another controller's gate or check does not make the job Held by dispatch", () => {
    const suspended = trainJob({ suspend: true })
    expect(jobState(observed({ trainJob: suspended, workload: workload({ gates: ["other/gate"] }) })).state).toBe("Queued")
    const otherCheck = { ...workload(), status: { conditions: [], admissionChecks: [{ name: "other-check", state: "Retry", message: HOLD_MESSAGE }] } }
    expect(jobState(observed({ trainJob: suspended, workload: otherCheck })).state).toBe("Queued")
    // Without an admission check in the config, no check entry holds the job.
    expect(jobState(observed({ trainJob: suspended, workload: workload({ entry: { state: "Retry" } }), check: undefined })).state).toBe("Queued")
    // Not even an entry without a name, which a search for an unset name would find.
    const nameless = { ...workload(), status: { conditions: [], admissionChecks: [{ state: "Pending", message: HOLD_MESSAGE }] } }
    expect(jobState(observed({ trainJob: suspended, workload: nameless, check: undefined })).state).toBe("Queued")
  })

  it("kueue mode: Queued says why Kueue has not admitted it, preferring Admitted's message, then QuotaReserved's", () => {
    const suspended = trainJob({ suspend: true })
    const queued = (conditions: ReadonlyArray<unknown>) => jobState(observed({ trainJob: suspended, workload: workload({ conditions }) }))
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
    expect(jobState(observed({ trainJob: trainJob({ suspend: false }, [{ active: 1 }]), workload: admitted }))).toEqual({ state: "Running" })
    expect(jobState(observed({ trainJob: trainJob({ suspend: true }, [{ active: 1 }]), workload: admitted }))).toEqual({ state: "Queued", reason: "admitted; no pod is active yet" })
  })
})

describe("the running rule", () => {
  const plain = (jobsStatus: ReadonlyArray<Record<string, unknown>>) => jobState(observed({ mode: "plain", trainJob: trainJob({ suspend: false }, jobsStatus) })).state

  it("counts a pod that is only ready, or only active, and ignores counts that are not positive numbers", () => {
    expect(plain([{ active: 0, ready: 1 }])).toBe("Running")
    expect(plain([{ active: 1, ready: 0 }])).toBe("Running")
    expect(plain([{ active: 0, ready: 0 }, { ready: 2 }])).toBe("Running")
    expect(plain([{ active: "1", ready: "1" }])).toBe("Queued")
    expect(plain([{ active: -1, ready: 0 }])).toBe("Queued")
    expect(plain([])).toBe("Queued")
  })

  it("an unanswered create exactly CallBound old can no longer land: Absent, not InFlight", () => {
    expect(jobState(observed({ inFlightAtMs: 1000, nowMs: 1999, callBoundMs: 1000 }))).toEqual({ state: "InFlight", sinceMs: 1000, untilMs: 2000 })
    expect(jobState(observed({ inFlightAtMs: 1000, nowMs: 2000, callBoundMs: 1000 }))).toEqual({ state: "Absent" })
  })

  it("a finished job's condition must be True: a False Complete or Failed does not finish it", () => {
    const job = { ...trainJob({ suspend: false }), status: { conditions: [condition("Complete", "False", ""), condition("Failed", "False", "")], jobsStatus: [] } }
    expect(jobState(observed({ mode: "plain", trainJob: job })).state).toBe("Queued")
  })
})

describe("admissionGatesOf", () => {
  it("lists the gates of the admission-gated-by annotation, and none without it", () => {
    expect(admissionGatesOf(workload({ gates: ["a/b", gate] }))).toEqual(["a/b", gate])
    expect(admissionGatesOf(workload())).toEqual([])
    expect(admissionGatesOf(undefined)).toEqual([])
  })
})
