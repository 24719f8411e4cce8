import { readFileSync } from "node:fs"
import { test as propTest } from "@fast-check/vitest"
import { ErrInvalid, ErrOutcomeUnknown, ErrReadOnly, ErrRejected, ErrUnreachable, ErrUnsupported } from "@dispatch/effects"
import fc from "fast-check"
import { describe, expect, test } from "vitest"
import { faultOf, foundEvent, JobDispatch, reportToken, reportTokenJob, reportTokenKey, serviceUrlKey } from "../src/index.ts"
import { jobControlRoutes } from "../src/http/JobControlRoutes.ts"

const reasons = fc.array(fc.string(), { minLength: 1, maxLength: 3 })
const anyError = fc.oneof(
  reasons.map((r) => new ErrInvalid({ reasons: r })),
  reasons.map((r) => new ErrUnsupported({ reasons: r })),
  reasons.map((r) => new ErrRejected({ reasons: r })),
  reasons.map((r) => new ErrUnreachable({ reasons: r })),
  reasons.map((r) => new ErrReadOnly({ reasons: r })),
  reasons.map((r) => new ErrOutcomeUnknown({ reasons: r }))
)

describe("the verdict on a typed error", () => {
  propTest.prop([anyError, fc.integer({ min: 0, max: 10 ** 12 }), fc.integer({ min: 1, max: 10 ** 6 })])(
    "refuses exactly ErrInvalid, ErrUnsupported and an ErrRejected with no passing cause, keeping every reason; an unanswered create may land until its call bound",
    (error, now, bound) => {
      const fault = faultOf(error, now, bound)
      const expected = { ErrInvalid: "refused", ErrUnsupported: "refused", ErrRejected: "refused", ErrUnreachable: "passing", ErrOutcomeUnknown: "unknown", ErrReadOnly: "readOnly" }[error._tag]
      expect(fault.verdict).toBe(expected)
      expect(fault.reason).toContain(error._tag)
      for (const reason of error.reasons) expect(fault.reason).toContain(reason)
      expect(fault.landsBy).toBe(error._tag === "ErrOutcomeUnknown" ? now + bound : undefined)
    }
  )
})

describe("the verdict on a typed error, by its cause", () => {
  test("a refusal or a passing fault is told by the cause Start recorded, never by the reasons' text", () => {
    const passing = new ErrRejected({ reasons: ["the copy's owner could not be set"], cause: { kind: "Passing", reason: "ServerError", code: 503, retryAfterMs: 2000 } })
    expect(faultOf(passing, 10, 5)).toEqual({ verdict: "passing", reason: "ErrRejected: the copy's owner could not be set", retryAfterMs: 2000 })
    const refused = new ErrRejected({ reasons: ["ServerError (503)"], cause: { kind: "Refused", reason: "Invalid", code: 422 } })
    expect(faultOf(refused, 10, 5).verdict).toBe("refused")
    expect(faultOf(new ErrUnsupported({ reasons: ["x"], cause: { kind: "Passing", reason: "ServerError", code: 503 } }), 10, 5).verdict).toBe("passing")
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

describe("status sync", () => {
  test("gives the machine Find's answer with the reason the job keeps when it ends", () => {
    expect(foundEvent({ state: "Succeeded", reason: "AllJobsCompleted", ref })).toEqual({ type: "found", found: "Succeeded", reason: "AllJobsCompleted" })
    expect(foundEvent({ state: "Failed", reason: "DeadlineExceeded", message: "too long", ref })).toEqual({ type: "found", found: "Failed", reason: "DeadlineExceeded: too long" })
    expect(foundEvent({ state: "Absent", ref })).toEqual({ type: "found", found: "Absent", reason: "the TrainJob ns/dj-x-s1 no longer exists" })
    expect(foundEvent({ state: "Stopping", ref })).toEqual({ type: "found", found: "Stopping", reason: "the TrainJob ns/dj-x-s1 is being deleted" })
    expect(foundEvent({ state: "InFlight", sinceMs: 0, untilMs: 7, ref })).toEqual({ type: "found", found: "InFlight", untilMs: 7 })
    expect(foundEvent({ state: "Queued", reason: "q", ref })).toEqual({ type: "found", found: "Queued" })
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
