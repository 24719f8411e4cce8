// A TrainJob runs as the real object tree: Trainer's JobSet, JobSet's Jobs, the Job controller's pods,
// scheduled and run by the simulated node on the simulator's clock, with Events for what happened.
import { fc, test as propTest } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { KubeObject } from "../../src/Api.ts"
import { indexRanges } from "../../src/controllers/job/JobController.ts"
import { syntheticLog } from "../../src/controllers/kubelet/SyntheticLogs.ts"
import { formatMicroTime } from "../../src/controllers/shared/Events.ts"
import { condition, create, get, list, mergePatch, simulator, specOf, statusOf, trainJob } from "../ControllersSim.ts"

const withCache = { runtimeRef: { name: "torch-with-cache", kind: "TrainingRuntime" } }
const meta = (o: KubeObject) => o.metadata as Record<string, any>
const names = (objects: ReadonlyArray<KubeObject>) => objects.map((o) => meta(o)["name"] as string)
const phases = (objects: ReadonlyArray<KubeObject>) => objects.map((o) => (statusOf(o) ?? {})["phase"])
const container = (pod: KubeObject) => (specOf(pod)["containers"] as Array<Record<string, any>>)[0] ?? {}
const eventsAbout = (sim: ReturnType<typeof simulator>, name: string) =>
  list(sim, "events").filter((e) => (e["involvedObject"] as Record<string, unknown>)["name"] === name).map((e) => e["reason"])
const trainer = { image: "example.org/train:2", command: ["python", "train.py"], args: ["--epochs", "3"], env: [{ name: "LR", value: "0.1" }], numNodes: 2, resourcesPerNode: { limits: { "nvidia.com/gpu": 1 } } }

describe("a TrainJob's object tree", () => {
  it("makes a JobSet, one Job per replicated job, and one running pod per node, named and labelled as upstream does", () => {
    const sim = simulator({ trainer: { runTimeMs: 5000 } })
    expect(create(sim, "trainjobs", trainJob("tj", { ...withCache, trainer })).code).toBe(201)
    const job = get(sim, "trainjobs", "tj")
    sim.advance(1000)
    const jobSet = get(sim, "jobsets", "tj")
    expect(meta(jobSet)["ownerReferences"]).toEqual([expect.objectContaining({ kind: "TrainJob", name: "tj", uid: meta(job)["uid"], controller: true })])
    expect(specOf(jobSet)["suspend"]).toBe(false)
    const jobs = list(sim, "jobs")
    expect(names(jobs)).toEqual(["tj-dataset-initializer-0", "tj-node-0"])
    const nodeJob = jobs[1] as KubeObject
    expect(meta(nodeJob)["labels"]).toMatchObject({
      "jobset.sigs.k8s.io/jobset-name": "tj",
      "jobset.sigs.k8s.io/jobset-uid": meta(jobSet)["uid"],
      "jobset.sigs.k8s.io/replicatedjob-name": "node",
      "jobset.sigs.k8s.io/replicatedjob-replicas": "1",
      "jobset.sigs.k8s.io/job-index": "0",
      "jobset.sigs.k8s.io/job-global-index": "1",
      "jobset.sigs.k8s.io/global-replicas": "2",
      "trainer.kubeflow.org/trainjob-ancestor-step": "trainer"
    })
    expect(meta(nodeJob)["labels"]["jobset.sigs.k8s.io/job-key"]).toMatch(/^[0-9a-f]{40}$/)
    expect(meta(nodeJob)["ownerReferences"]).toEqual([expect.objectContaining({ kind: "JobSet", name: "tj", uid: meta(jobSet)["uid"], controller: true })])
    expect(specOf(nodeJob)).toMatchObject({ parallelism: 2, completions: 2, completionMode: "Indexed", suspend: false })

    const pods = list(sim, "pods", "batch.kubernetes.io/job-name=tj-node-0")
    expect(names(pods)).toEqual([expect.stringMatching(/^tj-node-0-0-[a-z0-9]{5}$/), expect.stringMatching(/^tj-node-0-1-[a-z0-9]{5}$/)])
    expect(phases(pods)).toEqual(["Running", "Running"])
    const pod = pods[1] as KubeObject
    expect(meta(pod)["labels"]).toMatchObject({
      "batch.kubernetes.io/job-name": "tj-node-0",
      "batch.kubernetes.io/controller-uid": meta(nodeJob)["uid"],
      "controller-uid": meta(nodeJob)["uid"],
      "job-name": "tj-node-0",
      "batch.kubernetes.io/job-completion-index": "1",
      "jobset.sigs.k8s.io/jobset-name": "tj"
    })
    expect(meta(pod)["ownerReferences"]).toEqual([expect.objectContaining({ kind: "Job", name: "tj-node-0", uid: meta(nodeJob)["uid"] })])
    expect(specOf(pod)).toMatchObject({ hostname: "tj-node-0-1", subdomain: "tj", nodeName: "sim-node" })
    expect(container(pod)).toMatchObject({ name: "node", image: "example.org/train:2", command: ["python", "train.py"], args: ["--epochs", "3"], resources: { limits: { "nvidia.com/gpu": 1 } } })
    expect(container(pod)["env"]).toEqual(expect.arrayContaining([
      { name: "PET_NNODES", value: "2" },
      { name: "PET_MASTER_ADDR", value: "tj-node-0-0.tj" },
      { name: "LR", value: "0.1" },
      expect.objectContaining({ name: "JOB_COMPLETION_INDEX" })
    ]))
    expect((statusOf(pod)?.["containerStatuses"] as Array<unknown>)[0]).toMatchObject({ name: "node", ready: true, restartCount: 0, state: { running: {} } })
    expect(eventsAbout(sim, meta(pod)["name"])).toEqual(["Scheduled", "Pulled", "Created", "Started"])
    expect(eventsAbout(sim, "tj-node-0")).toEqual(["SuccessfulCreate", "SuccessfulCreate"])
  })

  it("ends the pods with the run: exit 0 and a complete Job and JobSet, or exit 1 on the trainer step and failed ones", () => {
    const sim = simulator({ trainer: { runTimeMs: 3000, outcomes: [{ name: "bad", result: "Failed" }] } })
    create(sim, "trainjobs", trainJob("good", { ...withCache, trainer: { numNodes: 2 } }))
    create(sim, "trainjobs", trainJob("bad", { ...withCache, trainer: { numNodes: 2 } }))
    sim.advance(6000)
    expect(condition(get(sim, "trainjobs", "good"), "Complete")?.["status"]).toBe("True")
    expect(phases(list(sim, "pods", "jobset.sigs.k8s.io/jobset-name=good"))).toEqual(["Succeeded", "Succeeded", "Succeeded"])
    expect(list(sim, "jobs", "jobset.sigs.k8s.io/jobset-name=good").map((j) => condition(j, "Complete")?.["status"])).toEqual(["True", "True"])
    expect(get(sim, "jobsets", "good")).toMatchObject({ status: { terminalState: "Completed" } })
    const terminated = (pod: KubeObject) => ((statusOf(pod)?.["containerStatuses"] as Array<any>)[0]).state.terminated
    const badTrainers = list(sim, "pods", "batch.kubernetes.io/job-name=bad-node-0")
    expect(phases(badTrainers)).toEqual(["Failed", "Failed"])
    expect(badTrainers.map((p) => terminated(p).exitCode)).toEqual([1, 1])
    expect(phases(list(sim, "pods", "batch.kubernetes.io/job-name=bad-dataset-initializer-0"))).toEqual(["Succeeded"])
    expect(condition(get(sim, "jobs", "bad-node-0"), "Failed")).toMatchObject({ status: "True", reason: "BackoffLimitExceeded" })
    expect(get(sim, "jobsets", "bad")).toMatchObject({ status: { terminalState: "Failed" } })
  })

  it("kills the pods when the deadline passes", () => {
    const sim = simulator({ trainer: { runTimeMs: 60_000 } })
    create(sim, "trainjobs", trainJob("late", { activeDeadlineSeconds: 2 }))
    sim.advance(4000)
    const [pod] = list(sim, "pods")
    expect(statusOf(pod as KubeObject)).toMatchObject({ phase: "Failed", reason: "DeadlineExceeded" })
    expect(eventsAbout(sim, meta(pod as KubeObject)["name"])).toContain("Killing")
  })

  it("makes no pods while suspended, and runs them once resumed", () => {
    const sim = simulator({ trainer: { runTimeMs: 5000 } })
    create(sim, "trainjobs", trainJob("held", { suspend: true }))
    sim.advance(3000)
    expect(specOf(get(sim, "jobsets", "held"))["suspend"]).toBe(true)
    expect(specOf(get(sim, "jobs", "held-node-0"))["suspend"]).toBe(true)
    expect(list(sim, "pods")).toEqual([])
    mergePatch(sim, "trainjobs", "held", { spec: { suspend: false } })
    sim.advance(2000)
    expect(phases(list(sim, "pods"))).toEqual(["Running"])
    mergePatch(sim, "trainjobs", "held", { spec: { suspend: true } })
    sim.advance(2000)
    expect(list(sim, "pods")).toEqual([])
    expect(eventsAbout(sim, "held-node-0")).toEqual(expect.arrayContaining(["SuccessfulCreate", "SuccessfulDelete", "Suspended", "Resumed"]))
  })

  it("records each component's events in the shape its upstream recorder writes them", () => {
    const sim = simulator({ trainer: { runTimeMs: 5000 } })
    create(sim, "trainjobs", trainJob("shaped", { trainer: { numNodes: 1 } }))
    sim.advance(1500)
    const patch = { manager: "example.org/probe", trainingRuntimeSpec: { template: { spec: { replicatedJobs: [{ name: "node", template: { spec: { template: { spec: { nodeSelector: { "example.org/probe": "never" } } } } } }] } } } }
    create(sim, "trainjobs", trainJob("stuck", { runtimePatches: [patch] }))
    sim.advance(1500)
    const byReason = (reason: string) => list(sim, "events").find((e) => e["reason"] === reason) as KubeObject
    const microTime = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/
    expect(formatMicroTime(Date.UTC(2026, 0, 1, 0, 0, 0, 123))).toBe("2026-01-01T00:00:00.123000Z")
    // kube-scheduler: events.k8s.io/v1, read through core/v1.
    for (const [reason, action] of [["Scheduled", "Binding"], ["FailedScheduling", "Scheduling"]] as const) {
      const event = byReason(reason)
      expect(event).toMatchObject({ firstTimestamp: null, lastTimestamp: null, action, source: {}, reportingComponent: "default-scheduler", reportingInstance: "default-scheduler-sim-node" })
      expect(event["eventTime"]).toMatch(microTime)
      expect(event).not.toHaveProperty("count")
    }
    // The kubelet and the Job controller: client-go's core/v1 recorder, its source's host the instance.
    for (const [reason, source, instance] of [["Started", { component: "kubelet", host: "sim-node" }, "sim-node"], ["SuccessfulCreate", { component: "job-controller" }, ""]] as const) {
      const event = byReason(reason)
      expect(event).toMatchObject({ count: 1, eventTime: null, reportingComponent: source.component, reportingInstance: instance })
      expect(event["source"]).toStrictEqual(source)
      expect(event["firstTimestamp"]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
      expect(event["lastTimestamp"]).toBe(event["firstTimestamp"])
      expect(event).not.toHaveProperty("action")
    }
  })

  it("leaves a pod no node matches Pending with one FailedScheduling event, and its TrainJob never completes", () => {
    const sim = simulator({ trainer: { runTimeMs: 1000 } })
    const patch = { manager: "example.org/probe", trainingRuntimeSpec: { template: { spec: { replicatedJobs: [{ name: "node", template: { spec: { template: { spec: { nodeSelector: { "example.org/probe": "never" } } } } } }] } } } }
    create(sim, "trainjobs", trainJob("probe", { runtimePatches: [patch] }))
    sim.advance(10_000)
    const [pod] = list(sim, "pods")
    expect(specOf(pod as KubeObject)["nodeSelector"]).toEqual({ "example.org/probe": "never" })
    expect(statusOf(pod as KubeObject)).toMatchObject({ phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable" }] })
    expect(eventsAbout(sim, meta(pod as KubeObject)["name"])).toEqual(["FailedScheduling"])
    expect(condition(get(sim, "trainjobs", "probe"), "Complete")).toBeUndefined()
    expect(statusOf(get(sim, "trainjobs", "probe"))?.["jobsStatus"]).toEqual([{ name: "node", active: 1, ready: 0, succeeded: 0, failed: 0, suspended: 0 }])
  })

  it("removes the whole tree when the TrainJob is deleted", () => {
    const sim = simulator({ trainer: { runTimeMs: 60_000 } })
    create(sim, "trainjobs", trainJob("gone", { ...withCache, trainer: { numNodes: 3 } }))
    sim.advance(2000)
    expect(list(sim, "pods")).toHaveLength(4)
    sim.system.delete("trainjobs", "default", "gone")
    sim.advance(3000)
    expect([list(sim, "jobsets"), list(sim, "jobs"), list(sim, "pods")]).toEqual([[], [], []])
  })

  it("answers field selectors describe uses for events and pods", () => {
    const sim = simulator({ trainer: { runTimeMs: 60_000 } })
    create(sim, "trainjobs", trainJob("sel"))
    sim.advance(2000)
    const [pod] = list(sim, "pods")
    const name = meta(pod as KubeObject)["name"]
    const outcome = sim.handle({ verb: "list", group: "", version: "v1", resource: "events", namespace: "default", fieldSelector: `involvedObject.name=${name},involvedObject.kind=Pod,involvedObject.uid=${meta(pod as KubeObject)["uid"]}` })
    expect(outcome.kind === "answered" && (outcome.response.body as { items: Array<KubeObject> }).items.map((e) => e["reason"])).toEqual(["Scheduled", "Pulled", "Created", "Started"])
    const running = sim.handle({ verb: "list", group: "", version: "v1", resource: "pods", namespace: "default", fieldSelector: "status.phase=Running" })
    expect(running.kind === "answered" && (running.response.body as { items: Array<unknown> }).items).toHaveLength(1)
    const bad = sim.handle({ verb: "list", group: "", version: "v1", resource: "pods", namespace: "default", fieldSelector: "spec.bogus=x" })
    expect(bad.kind === "answered" && bad.response.code).toBe(400)
  })
})

describe("a pod's synthetic log", () => {
  it("prints the command, a line per second of running, and the exit", () => {
    const sim = simulator({ trainer: { runTimeMs: 3000 } })
    create(sim, "trainjobs", trainJob("logged", { trainer: { command: ["python", "-c", "print('hi')"] } }))
    sim.advance(1000)
    const [running] = list(sim, "pods")
    const startedAt = Date.parse(String(((statusOf(running as KubeObject)?.["containerStatuses"] as Array<any>)[0]).state.running.startedAt))
    expect(syntheticLog(running as KubeObject, "node", startedAt + 1500).map((l) => l.text)).toEqual([
      "[sim] starting container node (image example.org/node:1)",
      "+ python -c 'print('\\''hi'\\'')'",
      "[sim] running: 1s"
    ])
    sim.advance(5000)
    const [done] = list(sim, "pods")
    expect(syntheticLog(done as KubeObject, "node", sim.now()).map((l) => l.text).at(-1)).toBe("[sim] exited with code 0")
    expect(syntheticLog(done as KubeObject, "other", sim.now())).toEqual([])
  })
})

describe("Events", () => {
  it("go an hour after they were recorded", () => {
    const sim = simulator({ trainer: { runTimeMs: 1000 } })
    create(sim, "trainjobs", trainJob("first"))
    sim.advance(3000)
    const early = list(sim, "events").length
    expect(early).toBeGreaterThan(0)
    sim.advance(60 * 60 * 1000)
    create(sim, "trainjobs", trainJob("second"))
    sim.advance(3000)
    const left = list(sim, "events").map((e) => (e["involvedObject"] as Record<string, string>)["name"])
    expect(left.length).toBeGreaterThan(0)
    expect(left.every((name) => name?.startsWith("second"))).toBe(true)
  })
})

describe("indexRanges", () => {
  const expand = (text: string): ReadonlyArray<number> =>
    text === ""
      ? []
      : text.split(",").flatMap((part) => {
          const [from, to] = part.split("-").map(Number)
          return Array.from({ length: (to ?? from ?? 0) - (from ?? 0) + 1 }, (_, i) => (from ?? 0) + i)
        })

  propTest.prop([fc.array(fc.nat({ max: 50 }), { maxLength: 40 })])("names exactly the distinct indexes, in order, each run as one range", (indexes) => {
    const text = indexRanges(indexes)
    expect(expand(text)).toEqual([...new Set(indexes)].sort((a, b) => a - b))
    // no two ranges touch: a range ends where the next could not continue it
    const bounds = text === "" ? [] : text.split(",").map((part) => part.split("-").map(Number))
    for (let i = 1; i < bounds.length; i++) expect((bounds[i]?.[0] ?? 0) - (bounds[i - 1]?.at(-1) ?? 0)).toBeGreaterThan(1)
  })

  it("writes Kubernetes' form", () => {
    expect(indexRanges([3, 0, 1, 2, 5, 7, 8])).toBe("0-3,5,7-8")
  })
})
