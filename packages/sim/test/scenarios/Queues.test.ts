// Kueue's LocalQueue and ClusterQueue objects: a Workload is admitted only when its ClusterQueue's
// nominal quota fits, in queue order; finished Workloads release quota and admit the next.
import { fc, test as propTest } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { KubeObject } from "../../src/Api.ts"
import { parseQuantity } from "../../src/kinds/core/Quantity.ts"
import { condition, create, get, list, simulator, statusOf, trainJob } from "../ControllersSim.ts"

const queued = (name: string, gpus: number, cpu: string) =>
  trainJob(name, { trainer: { resourcesPerNode: { requests: { cpu }, limits: { "nvidia.com/gpu": gpus } } } }, { labels: { "kueue.x-k8s.io/queue-name": "team" } })
const admitted = (sim: ReturnType<typeof simulator>) =>
  list(sim, "workloads").filter((w) => condition(w, "Admitted")?.["status"] === "True" && condition(w, "Finished")?.["status"] !== "True").map((w) => (w.metadata as Record<string, string>)["name"]?.replace(/^trainjob-(.*)-[0-9a-f]{5}$/, "$1")).sort()

describe("LocalQueue and ClusterQueue objects", () => {
  it("seeds a queue pair and admits in queue order while the nominal quota fits, then the next as quota is released", () => {
    const sim = simulator({
      trainer: { runTimeMs: 5000, outcomes: [{ name: "big", result: "Complete", afterMs: 60_000 }] },
      kueue: { seedQueues: [{ localQueue: "team", clusterQueue: "cluster-team", quota: { cpu: "4", memory: "8Gi", gpus: 2 } }] }
    })
    sim.advance(1000)
    expect(get(sim, "localqueues", "team")).toMatchObject({ spec: { clusterQueue: "cluster-team" } })
    const cq = sim.system.get("clusterqueues", undefined, "cluster-team") as KubeObject
    expect(cq).toMatchObject({ spec: { resourceGroups: [{ flavors: [{ name: "default-flavor", resources: [{ name: "cpu", nominalQuota: "4" }, { name: "memory", nominalQuota: "8Gi" }, { name: "nvidia.com/gpu", nominalQuota: "2" }] }] }] } })
    create(sim, "trainjobs", queued("first", 1, "1"))
    sim.advance(1000)
    create(sim, "trainjobs", queued("big", 1, "1"))
    sim.advance(1000)
    create(sim, "trainjobs", queued("third", 1, "500m"))
    sim.advance(2000)
    // first and big hold both GPUs: third waits, with Kueue's reason
    expect(admitted(sim)).toEqual(["big", "first"])
    const waiting = list(sim, "workloads").find((w) => String((w.metadata as Record<string, string>)["name"]).includes("third")) as KubeObject
    expect(condition(waiting, "QuotaReserved")).toMatchObject({ status: "False", message: expect.stringContaining("insufficient quota for nvidia.com/gpu") })
    expect(statusOf(get(sim, "localqueues", "team"))).toMatchObject({ pendingWorkloads: 1, admittedWorkloads: 2, reservingWorkloads: 2 })
    expect(list(sim, "workloads").every((w) => ["cluster-team", undefined].includes((statusOf(w)?.["admission"] as Record<string, string> | undefined)?.["clusterQueue"]))).toBe(true)
    // first finishes: its quota goes to third
    sim.advance(6000)
    expect(condition(get(sim, "trainjobs", "first"), "Complete")?.["status"]).toBe("True")
    expect(admitted(sim)).toEqual(["big", "third"])
  })

  it("counts CPU against the ClusterQueue's quota", () => {
    const sim = simulator({ trainer: { runTimeMs: 60_000 }, kueue: { seedQueues: [{ localQueue: "team", clusterQueue: "cq", quota: { cpu: "1500m" } }] } })
    sim.advance(1000)
    create(sim, "trainjobs", queued("a", 0, "1"))
    sim.advance(1000)
    create(sim, "trainjobs", queued("b", 0, "1"))
    sim.advance(2000)
    expect(admitted(sim)).toEqual(["a"])
  })

  it("admits by the options' queue when no LocalQueue object exists (as before)", () => {
    const sim = simulator({ kueue: { queues: { team: { clusterQueue: "cq", gpus: 1 } } } })
    create(sim, "trainjobs", queued("a", 1, "1"))
    create(sim, "trainjobs", queued("b", 1, "1"))
    sim.advance(2000)
    expect(admitted(sim)).toEqual(["a"])
    expect(list(sim, "localqueues")).toEqual([])
  })
})

describe("parseQuantity", () => {
  it("reads Kubernetes' suffixes", () => {
    expect(["500m", "2", "1.5Gi", "1k", "2e3", "64Mi", 3].map(parseQuantity)).toEqual([0.5, 2, 1.5 * 2 ** 30, 1000, 2000, 64 * 2 ** 20, 3])
    expect(["lots", "1x", ""].map(parseQuantity)).toEqual([undefined, undefined, undefined])
  })

  propTest.prop([fc.integer({ min: 0, max: 1_000_000 })])("an integer with m is a thousandth of itself, and Ki 1024 times", (n) => {
    expect(parseQuantity(`${n}m`)).toBeCloseTo(n / 1000, 9)
    expect(parseQuantity(`${n}Ki`)).toBe(n * 1024)
    expect(parseQuantity(String(n))).toBe(n)
  })
})
