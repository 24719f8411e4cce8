// The torch plugin's environment as Trainer v2.3 computes it (pkg/runtime/framework/plugins/torch):
// PET_NPROC_PER_NODE from numProcPerNode, else "auto" when the node has GPUs, else its CPUs rounded up
// (at least 1); the master address of the `node` job's first pod on port 29500; nothing without a
// trainer section; torchtune's command gets no master address.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { KubeObject } from "../src/Api.ts"
import { torchProcsPerNode } from "../src/controllers/trainer/PodTemplates.ts"
import { create, list, simulator, specOf, trainJob } from "./ControllersSim.ts"

const millis = fc.integer({ min: 1, max: 256_000 })
const gpuName = fc.constantFrom("nvidia.com/gpu", "amd.com/gpu", "example.org/GPU-large")

describe("torchProcsPerNode", () => {
  test.prop([fc.integer({ min: 1, max: 1024 }), fc.option(fc.record({ requests: fc.record({ cpu: fc.string() }) }), { nil: undefined })])("numProcPerNode wins over any resources", (n, resources) => {
    expect(torchProcsPerNode(n, resources)).toBe(String(n))
  })

  test.prop([gpuName, fc.integer({ min: 1, max: 16 }), fc.constantFrom("requests", "limits"), millis])("a node with GPUs, requested or limited, leaves the count to torchrun", (gpu, count, where, cpu) => {
    expect(torchProcsPerNode(undefined, { [where]: { [gpu]: count }, requests: { cpu: `${cpu}m`, ...(where === "requests" ? { [gpu]: count } : {}) } })).toBe("auto")
  })

  test.prop([millis])("a CPU request counts its cores rounded up, as Quantity's Value() does", (m) => {
    expect(torchProcsPerNode(undefined, { requests: { cpu: `${m}m` } })).toBe(String(Math.ceil(m / 1000)))
  })

  test.prop([fc.integer({ min: 1, max: 64 }), fc.constantFrom(undefined, "0")])("the CPU limit counts when nothing (or zero) is requested", (cores, request) => {
    expect(torchProcsPerNode(undefined, { limits: { cpu: cores }, ...(request === undefined ? {} : { requests: { cpu: request } }) })).toBe(String(cores))
  })

  it("is at least 1 without CPU or GPU, and a GPU count of 0 does not count", () => {
    expect(torchProcsPerNode(undefined, undefined)).toBe("1")
    expect(torchProcsPerNode(undefined, { requests: { memory: "1Gi" } })).toBe("1")
    expect(torchProcsPerNode(undefined, { requests: { cpu: "4", "nvidia.com/gpu": 0 } })).toBe("4")
    expect(torchProcsPerNode(undefined, { requests: { cpu: "1.5" } })).toBe("2")
  })
})

describe("a TrainJob's pods", () => {
  const containersOf = (name: string, spec: Record<string, unknown>, runtime?: KubeObject): ReadonlyArray<Record<string, unknown>> => {
    const sim = simulator({ trainer: { runTimeMs: 60_000 } })
    if (runtime !== undefined) expect(create(sim, "clustertrainingruntimes", runtime).code).toBe(201)
    expect(create(sim, "trainjobs", trainJob(name, spec)).code).toBe(201)
    sim.advance(1000)
    const pod = list(sim, "pods", `batch.kubernetes.io/job-name=${name}-node-0`)[0] as KubeObject
    return specOf(pod)["containers"] as Array<Record<string, unknown>>
  }
  const envOf = (name: string, spec: Record<string, unknown>, runtime?: KubeObject): ReadonlyArray<Record<string, unknown>> =>
    (containersOf(name, spec, runtime).find((c) => c["name"] === "node")?.["env"] as Array<Record<string, unknown>> | undefined) ?? []
  // What the plugin and the TrainJob added: every variable but the Job controller's completion index.
  const added = (env: ReadonlyArray<Record<string, unknown>>) => env.filter((e) => e["name"] !== "JOB_COMPLETION_INDEX")
  const value = (env: ReadonlyArray<Record<string, unknown>>, name: string) => env.find((e) => e["name"] === name)?.["value"]

  it("get PET_NPROC_PER_NODE from the CPU request of a CPU-only node, and Trainer's master port", () => {
    const env = envOf("cpu", { trainer: { numNodes: 2, resourcesPerNode: { requests: { cpu: "2500m" } }, env: [{ name: "LR", value: "0.1" }] } })
    expect(env.filter((e) => String(e["name"]).startsWith("PET_") || e["name"] === "LR")).toEqual([
      { name: "LR", value: "0.1" },
      { name: "PET_NNODES", value: "2" },
      { name: "PET_NPROC_PER_NODE", value: "3" },
      { name: "PET_NODE_RANK", valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } },
      { name: "PET_MASTER_ADDR", value: "cpu-node-0-0.cpu" },
      { name: "PET_MASTER_PORT", value: "29500" }
    ])
  })

  it("keep auto for GPUs, and take numProcPerNode as given", () => {
    expect(value(envOf("gpu", { trainer: { resourcesPerNode: { limits: { "nvidia.com/gpu": 2 } } } }), "PET_NPROC_PER_NODE")).toBe("auto")
    expect(value(envOf("four", { trainer: { numProcPerNode: 4, resourcesPerNode: { limits: { "nvidia.com/gpu": 2 } } } }), "PET_NPROC_PER_NODE")).toBe("4")
  })

  // A runtime whose trainer step runs these containers.
  const runtimeWith = (name: string, containers: ReadonlyArray<Record<string, unknown>>): KubeObject => ({
    apiVersion: "trainer.kubeflow.org/v1alpha1",
    kind: "ClusterTrainingRuntime",
    metadata: { name },
    spec: {
      mlPolicy: { numNodes: 1, torch: {} },
      template: { spec: { replicatedJobs: [{ name: "node", template: { metadata: { labels: { "trainer.kubeflow.org/trainjob-ancestor-step": "trainer" } }, spec: { template: { spec: { containers } } } } }] } }
    }
  })

  it("count the runtime's node container when the TrainJob names no resources, and only that container", () => {
    const sidecar = { name: "sidecar", image: "example.org/side:1", resources: { limits: { "nvidia.com/gpu": 1 } } }
    const node = (resources: Record<string, unknown>) => ({ name: "node", image: "example.org/train:1", resources })
    const procs = (runtime: KubeObject) => value(envOf("from-runtime", { runtimeRef: { name: String(runtime.metadata?.["name"]) }, trainer: {} }, runtime), "PET_NPROC_PER_NODE")
    expect(procs(runtimeWith("requests-cpu", [sidecar, node({ requests: { cpu: "6" } })]))).toBe("6")
    expect(procs(runtimeWith("limits-cpu", [node({ limits: { cpu: "1500m" } })]))).toBe("2")
    expect(procs(runtimeWith("gpus", [node({ limits: { "nvidia.com/gpu": 4 } })]))).toBe("auto")
    // The TrainJob's resourcesPerNode replace the runtime's.
    expect(value(envOf("override", { runtimeRef: { name: "gpus" }, trainer: { resourcesPerNode: { requests: { cpu: "3" } } } }, runtimeWith("gpus", [node({ limits: { "nvidia.com/gpu": 4 } })])), "PET_NPROC_PER_NODE")).toBe("3")
  })

  it("replace a variable of the same name where it stands: the TrainJob's over the runtime's, the plugin's over both", () => {
    const node = { name: "node", image: "example.org/train:1", env: [{ name: "PET_NNODES", value: "99" }, { name: "LR", value: "1" }, { name: "KEEP", value: "k" }] }
    const env = envOf("upserted", { runtimeRef: { name: "with-env" }, trainer: { env: [{ name: "LR", value: "0.1" }, { name: "NEW", value: "n" }] } }, runtimeWith("with-env", [node]))
    expect(env.map((e) => [e["name"], e["value"]])).toEqual([
      ["PET_NNODES", "1"],
      ["LR", "0.1"],
      ["KEEP", "k"],
      ["NEW", "n"],
      ["PET_NPROC_PER_NODE", "1"],
      ["PET_NODE_RANK", undefined],
      ["PET_MASTER_ADDR", "upserted-node-0-0.upserted"],
      ["PET_MASTER_PORT", "29500"],
      ["JOB_COMPLETION_INDEX", undefined]
    ])
  })

  it("get no PET_* variables without a trainer section, and no master address for torchtune", () => {
    expect(added(envOf("bare", {}))).toEqual([])
    const tune = envOf("tune", { trainer: { command: ["tune", "run"] } })
    expect(added(tune).map((e) => e["name"])).toEqual(["PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK"])
    // Only `tune run` itself is torchtune's entrypoint.
    expect(added(envOf("tune-ls", { trainer: { command: ["tune", "ls"] } })).map((e) => e["name"])).toContain("PET_MASTER_ADDR")
  })

  it("get none from a runtime without the torch policy, nor in a container other than node", () => {
    const plain: KubeObject = { ...runtimeWith("no-torch", [{ name: "node", image: "example.org/train:1" }]) }
    const spec = plain["spec"] as Record<string, unknown>
    expect(added(envOf("no-torch", { runtimeRef: { name: "no-torch" }, trainer: {} }, { ...plain, spec: { ...spec, mlPolicy: { numNodes: 1 } } }))).toEqual([])
    const trainerOnly = containersOf("renamed", { runtimeRef: { name: "renamed" }, trainer: { command: ["python", "t.py"] } }, runtimeWith("renamed", [{ name: "trainer", image: "example.org/train:1", resources: { requests: { cpu: "4" } } }]))
    expect(trainerOnly.map((c) => [c["name"], c["command"], added((c["env"] as Array<Record<string, unknown>> | undefined) ?? [])])).toEqual([["trainer", undefined, []]])
  })

  it("keep the runtime's command and args when the TrainJob names none, and leave other containers alone", () => {
    const node = { name: "node", image: "example.org/train:1", command: ["torchrun"], args: ["train.py"] }
    const sidecar = { name: "sidecar", image: "example.org/side:1" }
    const [first, second] = containersOf("kept", { runtimeRef: { name: "kept" }, trainer: { numNodes: 1 } }, runtimeWith("kept", [node, sidecar]))
    expect(first).toMatchObject({ name: "node", command: ["torchrun"], args: ["train.py"] })
    expect(second).toEqual({ ...sidecar, env: [expect.objectContaining({ name: "JOB_COMPLETION_INDEX" })] })
  })
})
