import { fc, test } from "@fast-check/vitest"
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { isJobId, MAX_TRAINJOB_NAME, trainJobName } from "@dispatch/render"
import { matchesLabels, parseLabelSelector } from "@dispatch/sim"
import { jobKeyProblems, jobObjects } from "../../src/lifecycle/JobKey.ts"
import { MAX_SELECTOR_JOBS, selectorFor } from "../../src/lifecycle/Find.ts"
import { jobId } from "../StartFixture.ts"
import { inProcess, lifecycleConfig } from "./LifecycleFixture.ts"

const config = lifecycleConfig("plain", inProcess.timing)
const validJob = fc.nat(1_000_000).map(jobId)
const job = fc.oneof(validJob, fc.string({ maxLength: 30 }))
const submission = fc.oneof(fc.integer({ min: -5, max: 1_100_000 }), fc.double())

describe("job keys", () => {
  test.prop([job, submission])("a key is accepted exactly when Start could have named a TrainJob for it", (j, s) => {
    const valid = isJobId(j) && Number.isInteger(s) && s >= 1 && s <= 999_999
    expect(jobKeyProblems({ job: j, submission: s }).length === 0).toBe(valid)
    if (valid) expect(trainJobName(j, s).length).toBeLessThanOrEqual(MAX_TRAINJOB_NAME)
  })

  it("names every problem of a malformed key at once, as ErrInvalid", () => {
    const exit = Effect.runSyncExit(jobObjects(config, { job: "nope", submission: 0 }))
    expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("ErrInvalid")
    expect(jobKeyProblems({ job: "nope", submission: 0 })).toHaveLength(2)
  })
})

describe("selectorFor", () => {
  test.prop([fc.array(validJob, { minLength: 1, maxLength: 80 }), validJob])("selects exactly the listed jobs' objects, or every dispatch job when they are many", (jobs, other) => {
    const parsed = parseLabelSelector(selectorFor(config, jobs.map((j) => ({ job: j, submission: 1 }))))
    if (!parsed.ok) throw new Error(parsed.message)
    const labelsOf = (j: string) => ({ "dispatch.phpboyscout.uk/job-id": j })
    for (const j of jobs) expect(matchesLabels(parsed.selector, labelsOf(j))).toBe(true)
    const many = new Set(jobs).size > MAX_SELECTOR_JOBS
    expect(matchesLabels(parsed.selector, labelsOf(other))).toBe(many || jobs.includes(other))
    expect(matchesLabels(parsed.selector, { team: "x" })).toBe(false)
  })
})

describe("jobKeyProblems on a long job", () => {
  it("quotes at most 80 characters of a job that is not a JobID", () => {
    const problem = jobKeyProblems({ job: "x".repeat(500), submission: 1 })[0]!
    expect(problem).toBe(`job: ${JSON.stringify("x".repeat(500)).slice(0, 80)} is not a JobID (a ULID: 26 upper-case Crockford base32 characters)`)
  })
})

describe("jobKeyProblems at the submission's upper edge", () => {
  it("accepts submission 999999 and refuses 1000000, whose name would be too long", () => {
    expect(jobKeyProblems({ job: jobId(1), submission: 999_999 })).toEqual([])
    expect(jobKeyProblems({ job: jobId(1), submission: 1_000_000 })).toEqual(["submission: must be a whole number from 1 to 999999, got 1000000"])
  })
})
