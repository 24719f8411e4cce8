import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { canonicalMlflowRunId, changeStatus, Job, newJob, setMlflowRunId, validateJobRequest } from "../src/index.ts"
import { catalog, decoded, failureOf, successOf, validRequest } from "./Fixtures.ts"

const t0 = "2026-11-30T12:00:00.000Z"
const t1 = "2026-11-30T12:05:00.000Z"
const job = newJob(successOf(validateJobRequest(1, validRequest, catalog)), 7, t0)
const runId = "0b9f2c2e-6d1a-4c3e-9a57-2f4b8e1d3c6a"

describe("Job", () => {
  it("starts queued, stamped, with no artifacts, and decodes as a Job", () => {
    expect([job.id, job.status, job.createdOn, job.lastModifiedOn, job.artifacts]).toEqual([7, "queued", t0, t0, []])
    expect(decoded(Job, JSON.parse(JSON.stringify(job)))).toEqual(job)
  })

  it("changes status through the state machine, stamping the time", () => {
    const started = successOf(changeStatus(job, "started", t1))
    expect([started.status, started.lastModifiedOn, started.createdOn]).toEqual(["started", t1, t0])
    expect(successOf(changeStatus(started, "reset", t1)).status).toBe("queued")
    expect(failureOf(changeStatus(job, "finished", t1)).message).toBe("a queued job cannot become finished; allowed: started, deferred, reset")
  })

  it("sets the MLflow run id once, and only to a UUID", () => {
    const withRun = successOf(setMlflowRunId(job, runId, t1))
    expect([withRun.mlflowRunId, withRun.lastModifiedOn]).toEqual([runId, t1])
    expect(failureOf(setMlflowRunId(withRun, runId, t1)).message).toBe(`job 7 already has MLflow run id ${runId}`)
    expect(failureOf(setMlflowRunId(job, "run-1", t1)).message).toBe('MLflow run id "run-1" is not a UUID (32 hex digits, with or without the four dashes)')
  })

  it("takes MLflow's own 32-hex form (uuid4().hex) and keeps the run id dashed, in lower case", () => {
    const hex = runId.replaceAll("-", "").toUpperCase()
    expect(successOf(setMlflowRunId(job, hex, t1)).mlflowRunId).toBe(runId)
    expect(job.timeout).toBe("2h")
  })

  it.each(["", "0b9f2c2e6d1a-4c3e-9a57-2f4b8e1d3c6a", "0b9f2c2e-6d1a-4c3e-9a57-2f4b8e1d3c6", "0b9f2c2e-6d1a-4c3e-9a57-2f4b8e1d3c6ag", "{0b9f2c2e-6d1a-4c3e-9a57-2f4b8e1d3c6a}"])(
    "refuses %j as a run id",
    (text) => expect(canonicalMlflowRunId(text)).toBeUndefined()
  )

  test.prop([fc.uuid(), fc.boolean(), fc.boolean()])("a UUID in either form and any case has one canonical form", (id, dashed, upper) => {
    const text = (dashed ? id : id.replaceAll("-", ""))[upper ? "toUpperCase" : "toLowerCase"]()
    expect(canonicalMlflowRunId(text)).toBe(id.toLowerCase())
  })
})
