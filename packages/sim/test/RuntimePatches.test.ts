import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { KubeObject } from "../src/Api.ts"
import type { ReplicatedJob } from "../src/controllers/trainer/ReplicatedJobs.ts"
import { replicatedJobsOf } from "../src/controllers/trainer/ReplicatedJobs.ts"
import { patchesChanged, runtimePatchProblems, stampPatchTimes } from "../src/controllers/trainer/RuntimePatches.ts"
import { kueueRuntimePatch } from "../src/controllers/kueue/Workloads.ts"

const jobs: ReadonlyArray<ReplicatedJob> = [
  { name: "dataset-initializer", replicas: 1, parallelism: 1, isTrainerStep: false, containers: ["dataset-initializer"], initContainers: [], podTemplate: {} },
  { name: "node", replicas: 1, parallelism: 2, isTrainerStep: true, containers: ["node", "sidecar"], initContainers: ["setup"], podTemplate: {} }
]
const target = fc.constantFrom(
  { job: "dataset-initializer", container: "dataset-initializer", init: false },
  { job: "node", container: "node", init: false },
  { job: "node", container: "sidecar", init: false },
  { job: "node", container: "setup", init: true }
)
const stranger = fc.stringMatching(/^x[a-z]{1,8}$/)
const patchFor = (manager: string, entries: ReadonlyArray<{ job: string; container: string; init: boolean; env?: boolean }>) => ({
  manager,
  trainingRuntimeSpec: {
    template: {
      spec: {
        replicatedJobs: entries.map((e) => ({
          name: e.job,
          template: { spec: { template: { spec: { [e.init ? "initContainers" : "containers"]: [{ name: e.container, ...(e.env === true ? { env: [{ name: "A", value: "1" }] } : {}) }] } } } }
        }))
      }
    }
  }
})

describe("runtimePatchProblems", () => {
  test.prop([fc.array(target, { maxLength: 6 })])("finds nothing wrong with patches aimed at what the runtime has", (entries) => {
    expect(runtimePatchProblems([patchFor("example.org/a", entries)], jobs)).toEqual([])
  })

  test.prop([fc.array(target, { maxLength: 4 }), stranger, fc.boolean()])("names an unknown replicated job or container", (entries, name, asJob) => {
    const bad = asJob ? { job: name, container: "node", init: false } : { job: "node", container: name, init: false }
    const problems = runtimePatchProblems([patchFor("example.org/a", [...entries, bad])], jobs)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toContain(`"${name}"`)
  })

  it("refuses env on the trainer container only", () => {
    expect(runtimePatchProblems([patchFor("example.org/a", [{ job: "node", container: "node", init: false, env: true }])], jobs)).toEqual([
      expect.stringContaining("Forbidden")
    ])
    expect(runtimePatchProblems([patchFor("example.org/a", [{ job: "node", container: "sidecar", init: false, env: true }])], jobs)).toEqual([])
  })
})

describe("stampPatchTimes", () => {
  const managers = fc.uniqueArray(fc.constantFrom("a.org/x", "b.org/y", "c.org/z", "d.org/w"), { maxLength: 4 })
  test.prop([managers, managers, fc.func(fc.boolean())])("keeps the stamp of unchanged entries and stamps new or changed ones", (before, after, changes) => {
    const old = before.map((manager) => ({ ...patchFor(manager, [{ job: "node", container: "node", init: false }]), time: "2026-01-01T00:00:00Z" }))
    const next = after.map((manager) => {
      const changed = changes(manager)
      return patchFor(manager, [{ job: "node", container: changed ? "sidecar" : "node", init: false }])
    })
    const stamped = stampPatchTimes(old, next, "2026-02-02T00:00:00Z")
    for (const [i, manager] of after.entries()) {
      const kept = before.includes(manager) && !changes(manager)
      expect(stamped[i]?.["time"]).toBe(kept ? "2026-01-01T00:00:00Z" : "2026-02-02T00:00:00Z")
    }
    expect(patchesChanged(stamped, next)).toBe(false)
  })
})

describe("replicatedJobsOf and Kueue's patch", () => {
  it("reads a runtime's steps and writes one patch entry per pod set, with the checks' updates", () => {
    const runtime: KubeObject = {
      spec: {
        mlPolicy: { numNodes: 2 },
        template: { spec: { replicatedJobs: [
          { name: "launcher", template: { spec: { parallelism: 1, template: { spec: { containers: [{ name: "launcher" }] } } } } },
          { name: "node", replicas: 2, template: { metadata: { labels: { "trainer.kubeflow.org/trainjob-ancestor-step": "trainer" } }, spec: { template: { spec: { containers: [{ name: "node" }] } } } } }
        ] } }
      }
    }
    const read = replicatedJobsOf(runtime, { spec: { trainer: { numNodes: 4 } } })
    expect(read.map(({ name, replicas, parallelism, isTrainerStep }) => ({ name, replicas, parallelism, isTrainerStep }))).toEqual([
      { name: "launcher", replicas: 1, parallelism: 1, isTrainerStep: false },
      { name: "node", replicas: 2, parallelism: 4, isTrainerStep: true }
    ])
    const workload: KubeObject = {
      spec: { podSets: [{ name: "launcher" }, { name: "node" }] },
      status: { admissionChecks: [{ name: "prov", state: "Ready", podSetUpdates: [{ name: "node", nodeSelector: { pool: "gpu" }, labels: { a: "b" } }] }] }
    }
    expect(kueueRuntimePatch(workload)).toEqual({
      manager: "kueue.x-k8s.io/manager",
      trainingRuntimeSpec: { template: { spec: { replicatedJobs: [
        { name: "launcher", template: { spec: { template: { metadata: { labels: { "kueue.x-k8s.io/podset": "launcher" } }, spec: {} } } } },
        { name: "node", template: { spec: { template: { metadata: { labels: { a: "b", "kueue.x-k8s.io/podset": "node" } }, spec: { nodeSelector: { pool: "gpu" } } } } } }
      ] } } }
    })
  })
})
