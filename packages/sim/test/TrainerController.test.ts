import { describe, expect, it } from "vitest"
import type { KubeObject, SystemClient } from "../src/Api.ts"
import { condition, create, get, mergePatch, simulator, specOf, statusOf, trainJob } from "./ControllersSim.ts"

describe("Trainer controller", () => {
  it("follows suspend, resume and completion", () => {
    const sim = simulator({ trainer: { runTimeMs: 5000 } })
    expect(create(sim, "trainjobs", trainJob("plain", { suspend: true })).code).toBe(201)
    sim.advance(1000)
    const suspended = get(sim, "trainjobs", "plain")
    expect(condition(suspended, "Suspended")).toMatchObject({ status: "True", reason: "Suspended" })
    expect(statusOf(suspended)?.["jobsStatus"]).toEqual([{ name: "node", active: 0, ready: 0, succeeded: 0, failed: 0, suspended: 1 }])
    sim.advance(30_000)
    expect(condition(get(sim, "trainjobs", "plain"), "Complete")).toBeUndefined()

    expect(mergePatch(sim, "trainjobs", "plain", { spec: { suspend: false } }).code).toBe(200)
    sim.advance(1000)
    const running = get(sim, "trainjobs", "plain")
    expect(condition(running, "Suspended")).toMatchObject({ status: "False", reason: "Resumed", lastTransitionTime: new Date(sim.now()).toISOString().replace(".000Z", "Z") })
    expect(statusOf(running)?.["jobsStatus"]).toEqual([{ name: "node", active: 1, ready: 1, succeeded: 0, failed: 0, suspended: 0 }])
    // The run clock starts when Trainer sees the resume (the step above); 5 s later it completes.
    sim.advance(4000)
    expect(condition(get(sim, "trainjobs", "plain"), "Complete")).toBeUndefined()
    sim.advance(1000)
    const done = get(sim, "trainjobs", "plain")
    expect(condition(done, "Complete")).toMatchObject({ status: "True", reason: "AllJobsCompleted" })
    expect(statusOf(done)?.["jobsStatus"]).toEqual([{ name: "node", active: 0, ready: 0, succeeded: 1, failed: 0, suspended: 0 }])

    // A finished job is no longer touched, even when suspended again.
    mergePatch(sim, "trainjobs", "plain", { spec: { suspend: true } })
    const before = get(sim, "trainjobs", "plain")
    sim.advance(10_000)
    expect(statusOf(get(sim, "trainjobs", "plain"))).toEqual(statusOf(before))
  })

  it("fails a job as scripted, by name or labels", () => {
    const sim = simulator({
      trainer: {
        outcomes: [
          { labels: { scenario: "oom" }, result: "Failed", afterMs: 2000, message: "node-0 OOMKilled" },
          { name: "slow", result: "Complete", afterMs: 20_000 }
        ]
      }
    })
    create(sim, "trainjobs", trainJob("crash", {}, { labels: { scenario: "oom" } }))
    create(sim, "trainjobs", trainJob("slow"))
    create(sim, "trainjobs", trainJob("usual"))
    sim.advance(3000)
    expect(condition(get(sim, "trainjobs", "crash"), "Failed")).toMatchObject({ status: "True", reason: "FailedJobs", message: "node-0 OOMKilled" })
    expect(condition(get(sim, "trainjobs", "crash"), "Complete")).toBeUndefined()
    sim.advance(3000)
    expect(condition(get(sim, "trainjobs", "usual"), "Complete")?.["status"]).toBe("True")
    expect(condition(get(sim, "trainjobs", "slow"), "Complete")).toBeUndefined()
    sim.advance(15_000)
    expect(condition(get(sim, "trainjobs", "slow"), "Complete")?.["status"]).toBe("True")
  })

  it("takes a scripted outcome from a function", () => {
    const sim = simulator({ trainer: { outcomes: (job) => (String((job["metadata"] as { name: string }).name).startsWith("bad") ? { result: "Failed", afterMs: 1000 } : undefined) } })
    create(sim, "trainjobs", trainJob("bad-one"))
    create(sim, "trainjobs", trainJob("good-one"))
    sim.advance(6000)
    expect(condition(get(sim, "trainjobs", "bad-one"), "Failed")?.["status"]).toBe("True")
    expect(condition(get(sim, "trainjobs", "good-one"), "Complete")?.["status"]).toBe("True")
  })

  it("fails a job past its active deadline, counting again from a resume", () => {
    const sim = simulator({ trainer: { runTimeMs: 60_000 } })
    create(sim, "trainjobs", trainJob("deadline", { activeDeadlineSeconds: 4 }))
    sim.advance(2000)
    mergePatch(sim, "trainjobs", "deadline", { spec: { suspend: true } })
    sim.advance(20_000)
    expect(condition(get(sim, "trainjobs", "deadline"), "Failed")).toBeUndefined()
    mergePatch(sim, "trainjobs", "deadline", { spec: { suspend: false } })
    sim.advance(3000)
    expect(condition(get(sim, "trainjobs", "deadline"), "Failed")).toBeUndefined()
    sim.advance(2000)
    const failed = get(sim, "trainjobs", "deadline")
    expect(condition(failed, "Failed")).toMatchObject({ status: "True", reason: "DeadlineExceeded" })
    expect(condition(failed, "Complete")).toBeUndefined()
  })

  it("gives no status at all to a job whose pod names would be too long", () => {
    const sim = simulator()
    const ref = { runtimeRef: { kind: "TrainingRuntime", name: "torch-with-cache" } }
    const longName = "a".repeat(37)
    expect(create(sim, "trainjobs", trainJob(longName, ref)).code).toBe(201)
    create(sim, "trainjobs", trainJob("short", ref))
    sim.advance(10_000)
    expect(statusOf(get(sim, "trainjobs", longName))?.["conditions"] ?? []).toEqual([])
    expect(statusOf(get(sim, "trainjobs", longName))?.["jobsStatus"]).toBeUndefined()
    expect(condition(get(sim, "trainjobs", "short"), "Complete")?.["status"]).toBe("True")
    expect(statusOf(get(sim, "trainjobs", "short"))?.["jobsStatus"]).toHaveLength(2)
  })

  it("ignores jobs managed by someone else", () => {
    const sim = simulator()
    create(sim, "trainjobs", trainJob("elsewhere", { managedBy: "kueue.x-k8s.io/multikueue", suspend: true }))
    sim.advance(10_000)
    expect(statusOf(get(sim, "trainjobs", "elsewhere"))?.["conditions"] ?? []).toEqual([])
  })

  it("calls onRun for running jobs only", () => {
    const seen: Array<string> = []
    const onRun = (job: KubeObject, system: SystemClient) => {
      seen.push(`${(job["metadata"] as { name: string }).name}@${system.now()}`)
    }
    const sim = simulator({ trainer: { runTimeMs: 3000, onRun } })
    const start = sim.now()
    create(sim, "trainjobs", trainJob("runs"))
    create(sim, "trainjobs", trainJob("waits", { suspend: true }))
    sim.advance(10_000)
    expect(seen).toEqual([`runs@${start + 1000}`, `runs@${start + 2000}`])
  })

  it("lets onRun reuse an object it wrote: its writes keep a copy, not the object itself", () => {
    const onRun = (job: KubeObject, system: SystemClient) => {
      const name = (job["metadata"] as { name: string }).name
      if (system.get("events", "default", `${name}.1`) !== undefined) return
      // One body, filled again for each write, as a hook posting metrics may keep it.
      const body = { apiVersion: "v1", kind: "Event", metadata: { name: `${name}.1`, namespace: "default" }, involvedObject: { kind: "TrainJob", name }, source: { component: "step-1" } }
      expect(system.create("events", body).code).toBe(201)
      body.metadata.name = `${name}.2`
      body.source.component = "step-2"
      expect(system.create("events", body).code).toBe(201)
    }
    const sim = simulator({ trainer: { runTimeMs: 3000, onRun } })
    create(sim, "trainjobs", trainJob("runs"))
    sim.advance(2_000)
    expect(get(sim, "events", "runs.1")?.["source"]).toEqual({ component: "step-1" })
    expect(get(sim, "events", "runs.2")?.["source"]).toEqual({ component: "step-2" })
  })
})

describe("Trainer webhook", () => {
  const message = (body: unknown) => String((body as { message?: string }).message)

  it("refuses a TrainJob whose runtime does not exist", () => {
    const sim = simulator()
    const missing = create(sim, "trainjobs", trainJob("orphan", { runtimeRef: { name: "nope" } }))
    expect(missing.code).toBeGreaterThanOrEqual(400)
    expect(message(missing.body)).toContain("nope")
    const wrongNamespace = create(sim, "trainjobs", trainJob("orphan", { runtimeRef: { kind: "TrainingRuntime", name: "torch-distributed" } }))
    expect(wrongNamespace.code).toBeGreaterThanOrEqual(400)
    expect(create(sim, "trainjobs", trainJob("fine", { runtimeRef: { kind: "TrainingRuntime", name: "torch-with-cache" } })).code).toBe(201)
  })

  it("refuses patches aimed at what the runtime lacks, naming every problem", () => {
    const sim = simulator()
    const patch = (replicatedJobs: unknown) => ({ manager: "example.org/tool", trainingRuntimeSpec: { template: { spec: { replicatedJobs } } } })
    const bad = create(sim, "trainjobs", trainJob("bad", {
      runtimePatches: [patch([
        { name: "launcher" },
        { name: "node", template: { spec: { template: { spec: { containers: [{ name: "sidecar" }, { name: "node", env: [{ name: "A", value: "1" }] }] } } } } }
      ])]
    }))
    expect(bad.code).toBeGreaterThanOrEqual(400)
    expect(message(bad.body)).toContain("launcher")
    expect(message(bad.body)).toContain("sidecar")
    expect(message(bad.body)).toContain("env")
    const good = create(sim, "trainjobs", trainJob("good", {
      suspend: true,
      runtimePatches: [patch([{ name: "node", template: { spec: { template: { spec: { nodeSelector: { pool: "a" }, containers: [{ name: "node" }] } } } } }])]
    }))
    expect(good.code).toBe(201)
    const stored = (specOf(get(sim, "trainjobs", "good"))["runtimePatches"] as ReadonlyArray<Record<string, unknown>>)[0]
    expect(stored?.["time"]).toBe(new Date(sim.now()).toISOString().replace(".000Z", "Z"))
  })

  it("checks patches added later too, and stamps only new or changed entries", () => {
    const sim = simulator()
    const patch = (manager: string, container: string) => ({
      manager,
      trainingRuntimeSpec: { template: { spec: { replicatedJobs: [{ name: "node", template: { spec: { template: { spec: { containers: [{ name: container }] } } } } }] } } }
    })
    create(sim, "trainjobs", trainJob("later", { suspend: true, runtimePatches: [patch("example.org/a", "node")] }))
    const created = sim.now()
    sim.advance(3000)
    const refused = mergePatch(sim, "trainjobs", "later", { spec: { runtimePatches: [patch("example.org/a", "node"), patch("example.org/b", "ghost")] } })
    expect(refused.code).toBeGreaterThanOrEqual(400)
    expect(message(refused.body)).toContain("ghost")
    expect(mergePatch(sim, "trainjobs", "later", { spec: { runtimePatches: [patch("example.org/a", "node"), patch("example.org/b", "node")] } }).code).toBe(200)
    const times = (specOf(get(sim, "trainjobs", "later"))["runtimePatches"] as ReadonlyArray<Record<string, unknown>>).map((p) => p["time"])
    const stamp = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z")
    expect(times).toEqual([stamp(created), stamp(sim.now())])
  })

  it("refuses env names the runtime's ML policy reserves", () => {
    const sim = simulator()
    const refused = create(sim, "trainjobs", trainJob("env", { trainer: { env: [{ name: "PET_NNODES", value: "2" }, { name: "MINE", value: "1" }] } }))
    expect(refused.code).toBeGreaterThanOrEqual(400)
    expect(message(refused.body)).toContain("PET_NNODES")
  })
})
