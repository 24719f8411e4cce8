import { readFileSync } from "node:fs"
import { test as propTest } from "@fast-check/vitest"
import { ErrInvalid, ErrOutcomeUnknown, ErrReadOnly, ErrRejected, ErrUnreachable, ErrUnsupported, type JobStatus as FoundStatus } from "@dispatch/effects"
import { allowedChanges, type JobStatus } from "@dispatch/jobs"
import fc from "fast-check"
import { describe, expect, test } from "vitest"
import { backoffMs, errorAction, JobDispatch, reportToken, reportTokenJob, reportTokenKey, serviceUrlKey, statusMove } from "../src/index.ts"
import { jobControlRoutes } from "../src/JobControlRoutes.ts"

const backoff = fc.record({ baseMs: fc.integer({ min: 1, max: 10_000 }), maxMs: fc.integer({ min: 1, max: 10_000_000 }) }).filter((b) => b.baseMs <= b.maxMs)

describe("retry spacing", () => {
  propTest.prop([backoff, fc.integer({ min: 1, max: 10_000 })])("stays between the first delay and the ceiling and never shrinks", (b, attempt) => {
    const delay = backoffMs(b, attempt)
    expect(delay).toBeGreaterThanOrEqual(b.baseMs)
    expect(delay).toBeLessThanOrEqual(b.maxMs)
    expect(backoffMs(b, attempt + 1)).toBeGreaterThanOrEqual(delay)
  })
  test("doubles from the first delay", () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffMs({ baseMs: 100, maxMs: 1000 }, n))).toEqual([100, 200, 400, 800, 1000])
  })
})

const reasons = fc.array(fc.string(), { minLength: 1, maxLength: 3 })
const anyError = fc.oneof(
  reasons.map((r) => new ErrInvalid({ reasons: r })),
  reasons.map((r) => new ErrUnsupported({ reasons: r })),
  reasons.map((r) => new ErrRejected({ reasons: r })),
  reasons.map((r) => new ErrUnreachable({ reasons: r })),
  reasons.map((r) => new ErrReadOnly({ reasons: r })),
  reasons.map((r) => new ErrOutcomeUnknown({ reasons: r }))
)

describe("the error mapping", () => {
  propTest.prop([anyError, fc.integer({ min: 1, max: 50 }), backoff])("fails the job exactly for ErrInvalid, ErrUnsupported and ErrRejected, keeping every reason", (error, attempt, b) => {
    const action = errorAction(error, attempt, b)
    const expected = { ErrInvalid: "fail", ErrUnsupported: "fail", ErrRejected: "fail", ErrUnreachable: "retry", ErrOutcomeUnknown: "retry", ErrReadOnly: "reprove" }[error._tag]
    expect(action.kind).toBe(expected)
    expect(action.reasons.join("\n")).toContain(error._tag)
    for (const reason of error.reasons) expect(action.reasons.join("\n")).toContain(reason)
    if (action.kind !== "fail") expect(action.delayMs).toBe(backoffMs(b, attempt))
  })
})

describe("report tokens", () => {
  const secret = fc.uint8Array({ minLength: 16, maxLength: 32 }).map((bytes) => Buffer.from(bytes).toString("hex"))
  const job = fc.integer({ min: 1, max: 2 ** 31 })
  propTest.prop([secret, job])("name their job under their secret", (s, id) => {
    expect(reportTokenJob(s, reportToken(s, id))).toBe(id)
  })
  propTest.prop([secret, secret, job])("are refused under another secret", (s, other, id) => {
    fc.pre(s !== other)
    expect(reportTokenJob(other, reportToken(s, id))).toBeUndefined()
  })
  propTest.prop([secret, job, job])("cannot be moved to another job", (s, id, otherId) => {
    fc.pre(id !== otherId)
    const [prefix, , digest] = reportToken(s, id).split(".")
    expect(reportTokenJob(s, `${prefix}.${otherId}.${digest}`)).toBeUndefined()
  })
})

const ref = { namespace: "ns", name: "dj-x-s1", uid: "u" }
const found = fc.oneof(
  fc.constant<FoundStatus>({ state: "Absent", ref }),
  fc.constant<FoundStatus>({ state: "InFlight", sinceMs: 0, untilMs: 1, ref }),
  fc.constant<FoundStatus>({ state: "Held", reason: "h", ref }),
  fc.constant<FoundStatus>({ state: "Queued", reason: "q", ref }),
  fc.constant<FoundStatus>({ state: "Running", ref }),
  fc.string().map((reason): FoundStatus => ({ state: "Succeeded", reason, ref })),
  fc.tuple(fc.string(), fc.string()).map(([reason, message]): FoundStatus => ({ state: "Failed", reason, message, ref })),
  fc.constant<FoundStatus>({ state: "Stopping", ref })
)

describe("status sync", () => {
  propTest.prop([fc.constantFrom<JobStatus>("queued", "started"), found])(
    "moves an opened job along legal transitions (failing one that never ran directly), and ends it exactly when its TrainJob ended or is gone",
    (from, answer) => {
      const move = statusMove(from, answer)
      let at: JobStatus = from
      for (const step of move.steps) {
        const direct = step === "failed" && move.steps.length === 1 && ["Absent", "Stopping"].includes(answer.state)
        if (!direct) expect(allowedChanges[at]).toContain(step)
        at = step
      }
      expect(move.ended).toBe(["Succeeded", "Failed", "Absent", "Stopping"].includes(answer.state))
      if (move.ended) expect(at).toBe(answer.state === "Succeeded" ? "finished" : "failed")
    }
  )
  test("fills in the missed start, keeps a requeued job started, and says why a job failed", () => {
    expect(statusMove("queued", { state: "Succeeded", reason: "AllJobsCompleted", ref }).steps).toEqual(["started", "finished"])
    expect(statusMove("started", { state: "Queued", reason: "requeued", ref })).toEqual({ steps: [], ended: false })
    expect(statusMove("started", { state: "Failed", reason: "DeadlineExceeded", message: "too long", ref })).toEqual({ steps: ["failed"], reason: "DeadlineExceeded: too long", ended: true })
    expect(statusMove("queued", { state: "Absent", ref })).toEqual({ steps: ["failed"], reason: "the TrainJob ns/dj-x-s1 no longer exists", ended: true })
  })
})

describe("docs/jobs.md, Jobs on the cluster", () => {
  test("names the report-back variables, every dispatch state and every job control endpoint", () => {
    const doc = readFileSync(new URL("../../../docs/jobs.md", import.meta.url), "utf8")
    const section = doc.slice(doc.indexOf("## Jobs on the cluster"))
    expect(section.length).toBeLessThan(doc.length)
    for (const key of [serviceUrlKey, reportTokenKey, "DIOPTRA_JOB_ID"]) expect(section).toContain(`\`${key}\``)
    for (const state of JobDispatch.fields.state.literals) expect(section).toContain(`\`${state}\``)
    for (const r of jobControlRoutes) expect(section).toContain(`\`${r.method} ${r.path}\``)
  })
})
