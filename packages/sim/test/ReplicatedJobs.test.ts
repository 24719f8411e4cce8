// Pod names of a TrainJob's replicated Jobs: the longest a Job's pods get, and which Jobs can never be
// scheduled because a pod's name would be too long for a label.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { isRfc1035Label } from "@dispatch/kube"
import { longestPodName, unschedulableJobs, type ReplicatedJob } from "../src/controllers/trainer/ReplicatedJobs.ts"

const rfc1035 = fc.stringMatching(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/)
const replicated = (name: string, replicas: number, parallelism: number): ReplicatedJob => ({
  name, replicas, parallelism, isTrainerStep: name === "node", containers: [], initContainers: [], podTemplate: {}
})

describe("pod names", () => {
  // facts.md: with a 37-character TrainJob name, a replicated job name fits iff it is at most
  // 16 - digits(maxPodIdx) long (one Job per replicated job).
  const pods = fc.oneof(fc.integer({ min: 1, max: 100_000 }), fc.constantFrom(1, 10, 11, 100, 101, 1000, 1001, 10_000, 10_001))
  test.prop([
    fc.stringMatching(/^[a-z][a-z0-9]{36}$/),
    pods,
    fc.integer({ min: -2, max: 2 }),
    fc.stringMatching(/^[a-z]{30}$/)
  ])("follow the 16 - digits(maxPodIdx) rule for 37-character TrainJob names", (jobName, count, offset, letters) => {
    const limit = 16 - String(count - 1).length
    const stepName = letters.slice(0, Math.max(1, limit + offset))
    const fits = stepName.length <= limit
    expect(unschedulableJobs(jobName, [replicated(stepName, 1, count)])).toEqual(fits ? [] : [stepName])
  })

  it("name the last Job's last pod", () => {
    expect(longestPodName("job", replicated("node", 1, 4))).toBe("job-node-0-3-xxxxx")
    expect(longestPodName("job", replicated("worker", 12, 1))).toBe("job-worker-11-0-xxxxx")
  })

  test.prop([rfc1035, fc.array(fc.tuple(rfc1035, fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 200 })), { maxLength: 4 })])(
    "flag exactly the replicated jobs whose longest pod name is not a label",
    (jobName, specs) => {
      const jobs = specs.map(([name, replicas, pods]) => replicated(name, replicas, pods))
      const flagged = new Set(unschedulableJobs(jobName, jobs))
      for (const job of jobs) expect(flagged.has(job.name)).toBe(longestPodName(jobName, job).length > 63)
    }
  )

  it("matches the shipped runtimes' cases", () => {
    const name = "a".repeat(37)
    expect(unschedulableJobs(name, [replicated("node", 1, 1), replicated("launcher", 1, 1)])).toEqual([])
    expect(unschedulableJobs(name, [replicated("dataset-initializer", 1, 1), replicated("model-initializer", 1, 1)]))
      .toEqual(["dataset-initializer", "model-initializer"])
    expect(isRfc1035Label("1abc")).toBe(false)
  })
})
