import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { KubeObject } from "../src/Api.ts"
import { findCondition, readConditions } from "../src/controllers/shared/Conditions.ts"
import type { RunOutcome } from "../src/controllers/Options.ts"
import type { ReplicatedJob } from "../src/controllers/trainer/ReplicatedJobs.ts"
import { outcomeOf } from "../src/controllers/trainer/RunOutcomes.ts"
import { formatTimestamp } from "../src/controllers/shared/Timestamps.ts"
import { stepTrainJob } from "../src/controllers/trainer/TrainJobLifecycle.ts"

const start = 1_767_225_600_000
const jobs: ReadonlyArray<ReplicatedJob> = [
  { name: "dataset-initializer", replicas: 1, parallelism: 1, isTrainerStep: false, containers: [], initContainers: [], podTemplate: {} },
  { name: "node", replicas: 1, parallelism: 4, isTrainerStep: true, containers: ["node"], initContainers: [], podTemplate: {} }
]
const trainJob = (spec: Record<string, unknown>, status?: unknown): KubeObject => ({
  metadata: { name: "job", creationTimestamp: formatTimestamp(start) },
  spec,
  ...(status === undefined ? {} : { status })
})

// Runs the lifecycle from creation, one step a second, the way the simulator's clock moves.
const run = (job: KubeObject, outcome: RunOutcome, seconds: number) => {
  let current = job
  const phases: Array<string> = []
  for (let s = 1; s <= seconds; s++) {
    const step = stepTrainJob(current, jobs, outcome, start + s * 1000)
    current = { ...current, status: step.status }
    phases.push(step.phase)
  }
  return { job: current, phases }
}

describe("stepTrainJob", () => {
  test.prop([
    fc.constantFrom<RunOutcome["result"]>("Complete", "Failed"),
    fc.integer({ min: 1, max: 30 }).map((s) => s * 1000),
    fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined })
  ])("ends at the earlier of the scripted end and the deadline, and never changes after", (result, afterMs, deadline) => {
    const spec = deadline === undefined ? {} : { activeDeadlineSeconds: deadline }
    const { job, phases } = run(trainJob(spec), { result, afterMs }, 40)
    const endsAt = Math.min(afterMs / 1000, deadline ?? Number.POSITIVE_INFINITY)
    expect(phases.indexOf("finished") + 1).toBe(endsAt)
    expect(phases.slice(endsAt - 1).every((p) => p === "finished")).toBe(true)
    const conditions = readConditions(job.status !== undefined ? (job.status as Record<string, unknown>)["conditions"] : [])
    const byDeadline = deadline !== undefined && deadline * 1000 < afterMs
    if (byDeadline) expect(findCondition(conditions, "Failed")?.reason).toBe("DeadlineExceeded")
    else if (result === "Complete") expect(findCondition(conditions, "Complete")?.reason).toBe("AllJobsCompleted")
    else expect(findCondition(conditions, "Failed")?.reason).toBe("FailedJobs")
    expect(conditions.length).toBeLessThanOrEqual(8)
  })

  it("reports suspended jobs and restarts the run clock on resume", () => {
    const outcome: RunOutcome = { result: "Complete", afterMs: 60_000 }
    const suspended = run(trainJob({ suspend: true, activeDeadlineSeconds: 5 }), outcome, 10)
    expect(suspended.phases.every((p) => p === "suspended")).toBe(true)
    const status = suspended.job.status as Record<string, unknown>
    expect(findCondition(readConditions(status["conditions"]), "Suspended")).toMatchObject({ status: "True", reason: "Suspended" })
    expect(status["jobsStatus"]).toEqual([
      { name: "dataset-initializer", active: 0, ready: 0, succeeded: 0, failed: 0, suspended: 1 },
      { name: "node", active: 0, ready: 0, succeeded: 0, failed: 0, suspended: 1 }
    ])
    // Resumed 10 s after creation: the 5 s deadline counts from the resume, not from creation.
    let job: KubeObject = { ...suspended.job, spec: { activeDeadlineSeconds: 5 } }
    const phases: Array<string> = []
    for (let s = 11; s <= 20; s++) {
      const step = stepTrainJob(job, jobs, outcome, start + s * 1000)
      job = { ...job, status: step.status }
      phases.push(step.phase)
    }
    expect(phases).toEqual(["running", "running", "running", "running", "running", "finished", "finished", "finished", "finished", "finished"])
    const conditions = readConditions((job.status as Record<string, unknown>)["conditions"])
    expect(findCondition(conditions, "Suspended")).toMatchObject({ status: "False", reason: "Resumed", lastTransitionTime: formatTimestamp(start + 11_000) })
    // Trainer's own words (its TrainJobDeadlineExceededMessage).
    expect(findCondition(conditions, "Failed")).toMatchObject({ reason: "DeadlineExceeded", message: "TrainJob exceeded its active deadline" })
  })

  it("reports active jobs while running", () => {
    const step = stepTrainJob(trainJob({}), jobs, { result: "Complete", afterMs: 9000 }, start + 2000)
    expect(step.phase).toBe("running")
    expect(step.status["jobsStatus"]).toEqual([
      { name: "dataset-initializer", active: 1, ready: 1, succeeded: 0, failed: 0, suspended: 0 },
      { name: "node", active: 1, ready: 1, succeeded: 0, failed: 0, suspended: 0 }
    ])
    expect(step.status["conditions"]).toBeUndefined()
  })
})

describe("outcomeOf", () => {
  const job: KubeObject = { metadata: { name: "a", labels: { team: "x" } } }
  test.prop([fc.integer({ min: 1, max: 100_000 })])("defaults to Complete after the run time", (ms) => {
    expect(outcomeOf(undefined, ms, job)).toEqual({ result: "Complete", afterMs: ms })
    expect(outcomeOf(() => undefined, ms, job)).toEqual({ result: "Complete", afterMs: ms })
    expect(outcomeOf([{ name: "other", result: "Failed" }], ms, job)).toEqual({ result: "Complete", afterMs: ms })
  })
  it("takes the first matching row, by name and labels", () => {
    const table = [
      { labels: { team: "y" }, result: "Failed" as const, afterMs: 1 },
      { name: "a", labels: { team: "x" }, result: "Failed" as const, message: "oom" },
      { name: "a", result: "Complete" as const, afterMs: 3 }
    ]
    expect(outcomeOf(table, 7, job)).toEqual({ result: "Failed", afterMs: 7, message: "oom" })
  })
})
