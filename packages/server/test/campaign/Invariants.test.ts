// The checker can fail: each invariant is broken on purpose in a store state that is otherwise healthy.
import { describe, expect, test } from "vitest"
import { passingMark, refusalMark } from "./FaultInjection.ts"
import { violations, type JobRecord, type Observation, type StoredObject, type StoredTrainJob } from "./Invariants.ts"
import { isEdge } from "./StatusEdges.ts"

const key = "01jobkey"
const trainJob: StoredTrainJob = { name: "dj-a-s1", uid: "u-tj", labelValues: [key, "1"], owners: [], suspended: false }
const copy: StoredObject = { name: "dj-a-s1", uid: "u-copy", labelValues: [key], owners: [{ kind: "TrainJob", name: "dj-a-s1", uid: "u-tj" }] }
const finished: JobRecord = {
  id: 1,
  key,
  status: "finished",
  progress: { kind: "terminal" },
  deleted: false,
  cancelled: false,
  history: [{ status: "queued" }, { status: "started" }, { status: "finished", reason: "AllJobsCompleted" }],
  failure: " |  | AllJobsCompleted"
}
const healthy: Observation = {
  now: 1000,
  jobs: [finished],
  trainJobs: [trainJob],
  copies: [copy],
  landedTrainJobs: [{ name: "dj-a-s1", labelValues: [key] }],
  readBacks: ["dj-a-s1"],
  answers: [{ request: "POST /experiments/1/jobs", status: 200, lost: false }]
}
const broken = (o: Partial<Observation>) => violations({ ...healthy, ...o }).map((v) => v.invariant)
const cancelled: JobRecord = { ...finished, status: "failed", cancelled: true, history: [{ status: "queued" }, { status: "started" }, { status: "failed", reason: "cancelled" }] }

describe("the campaign's invariants", () => {
  test("a healthy store breaks none", () => {
    expect(violations(healthy)).toEqual([])
    expect(violations({ ...healthy, jobs: [{ ...finished, progress: { kind: "retrying", at: 2000 } }] })).toEqual([])
  })

  test("1: a job still active, or whose retry is past, breaks it", () => {
    expect(broken({ jobs: [{ ...finished, progress: { kind: "active", state: "stopping" } }] })).toEqual([1])
    expect(broken({ jobs: [{ ...finished, progress: { kind: "retrying", at: 1000 } }] })).toEqual([1])
  })

  test("2: a cancelled or deleted job with a TrainJob or a copy left breaks it", () => {
    expect(broken({ jobs: [cancelled] })).toEqual([2, 2])
    expect(broken({ jobs: [{ ...finished, deleted: true }], trainJobs: [] , copies: [{ ...copy, owners: [] }] })).toEqual([2, 5])
    expect(broken({ jobs: [cancelled], trainJobs: [], copies: [] })).toEqual([])
  })

  test("3: a job failed on a passing fault, or on nothing that refused it, breaks it; a refusal does not", () => {
    const failed = (failure: string): JobRecord => ({ ...finished, status: "failed", failure, history: [{ status: "queued" }, { status: "failed" }] })
    expect(broken({ jobs: [failed(`ErrRejected: 503 ${passingMark}`)] })).toEqual([3])
    expect(broken({ jobs: [failed("ErrRejected: get trainjobs: Unanswered")] })).toEqual([3])
    expect(broken({ jobs: [failed(`ErrInvalid: admission webhook denied the request: ${refusalMark}`)] })).toEqual([])
  })

  test("4: two TrainJobs for one job, a started TrainJob not owning its copy or never read back break it", () => {
    expect(broken({ landedTrainJobs: [{ name: "dj-a-s1", labelValues: [key] }, { name: "dj-b-s1", labelValues: [key] }] })).toEqual([4])
    expect(broken({ trainJobs: [trainJob, { ...trainJob, name: "dj-b-s1", uid: "u-2" }], copies: [copy, { ...copy, name: "dj-b-s1", owners: [{ kind: "TrainJob", name: "dj-b-s1", uid: "u-2" }] }], readBacks: ["dj-a-s1", "dj-b-s1"] })).toEqual([4])
    expect(broken({ copies: [{ ...copy, owners: [{ kind: "TrainJob", name: "dj-a-s1", uid: "other" }] }] })).toEqual([4, 5])
    expect(broken({ readBacks: [] })).toEqual([4])
    // A suspended TrainJob has not been started: its copy's owner and read-back are not yet due.
    expect(broken({ trainJobs: [{ ...trainJob, suspended: true }], readBacks: [] })).toEqual([])
  })

  test("5: a copy whose owner is gone or never set breaks it", () => {
    expect(broken({ trainJobs: [], copies: [copy] })).toEqual([5])
    expect(broken({ copies: [copy, { ...copy, name: "dj-z-s1", labelValues: ["other"], owners: [] }] })).toEqual([5])
  })

  test("6: a history off the state machine's edges breaks it", () => {
    expect(broken({ jobs: [{ ...finished, history: [{ status: "queued" }, { status: "finished" }] }] })).toEqual([6])
    expect(broken({ jobs: [{ ...finished, history: [{ status: "started" }, { status: "finished" }] }] })).toEqual([6])
    expect(broken({ jobs: [{ ...finished, history: [{ status: "queued" }, { status: "started" }, { status: "finished" }, { status: "started" }] }] })).toEqual([6])
  })

  test("7: a 5xx answer breaks it, unless its process was killed before it answered", () => {
    expect(broken({ answers: [{ request: "POST /jobs/1/cancel", status: 500, lost: false }] })).toEqual([7])
    expect(broken({ answers: [{ request: "POST /jobs/1/cancel", status: 503, lost: false }] })).toEqual([7])
    expect(broken({ answers: [{ request: "POST /jobs/1/cancel", status: 500, lost: true }] })).toEqual([])
  })

  test("the machine's edges: a job never finishes without starting, never ends twice, and no status is made up", () => {
    for (const [from, to] of [["queued", "started"], ["started", "finished"], ["finished", "queued"], ["queued", "failed"], ["started", "deferred"], ["deferred", "failed"]] as const) expect(isEdge(from, to)).toBe(true)
    for (const [from, to] of [["queued", "finished"], ["failed", "failed"], ["finished", "failed"], ["queued", "unknown"], ["lost", "queued"]] as const) expect(isEdge(from, to)).toBe(false)
  })
})
