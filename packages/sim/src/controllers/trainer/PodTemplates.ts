// The pod template Trainer's runtime framework renders for one replicated job of a TrainJob: the
// runtime's template, then (on the trainer step's `node` container) spec.trainer's image, command,
// args, env and resources and the variables Trainer v2.3's torch plugin injects, then every runtime patch's
// labels, annotations, node selector, tolerations and container fields for that replicated job.
import type { KubeObject } from "../../Api.ts"
import { asArray, asNumber, asRecord, asRecords, at, nameOf, type JsonRecord } from "../shared/KubeFields.ts"
import { withTrainerOverrides } from "../kueue/PodSets.ts"
import type { ReplicatedJob } from "./ReplicatedJobs.ts"
import { runtimePatchesOf } from "./RuntimePatches.ts"
import { kueueManager, trainerContainerName } from "../shared/WellKnown.ts"
import { completionIndexKey } from "../../kinds/batch/JobNames.ts"
import { parseQuantity } from "../../kinds/core/Quantity.ts"

/** The port torchrun's rendezvous listens on in Trainer's torch plugin (its ContainerTrainerPort). */
export const torchMasterPort = 29500

/** The command that makes Trainer's torch plugin set torchtune up instead of torchrun's master address. */
const torchTuneEntrypoint = ["tune", "run"]

// A quantity's whole count as resource.Quantity's Value() gives it: rounded up (to the micro-unit first,
// so that a float's last bit, as in 0.1 * 3, adds no whole one). A negative count, which no node
// requests, would round toward zero here and away from it in Go: either way it counts as none.
const wholeCount = (value: unknown): number => Math.ceil(Math.round((parseQuantity(value) ?? 0) * 1e6) / 1e6)

// The first resource whose name holds "gpu", any case, as Trainer's GetNumGPUPerNode finds it.
const gpusIn = (list: JsonRecord | undefined): number =>
  wholeCount(Object.entries(list ?? {}).find(([resource]) => resource.toLowerCase().includes("gpu"))?.[1])

/**
 * PET_NPROC_PER_NODE as Trainer v2.3's torch plugin computes it: the TrainJob's numProcPerNode; else, when
 * the node requests no GPU (its requests, else its limits), its CPU request (else its CPU limit) rounded
 * up, at least 1; else "auto", for torchrun to count the GPUs.
 */
export const torchProcsPerNode = (numProcPerNode: number | undefined, resources: JsonRecord | undefined): string => {
  if (numProcPerNode !== undefined) return String(numProcPerNode)
  const requests = asRecord(resources?.["requests"])
  const limits = asRecord(resources?.["limits"])
  const gpus = gpusIn(requests) || gpusIn(limits)
  if (gpus > 0) return "auto"
  const requested = wholeCount(requests?.["cpu"])
  const cpus = requests?.["cpu"] === undefined || (parseQuantity(requests["cpu"]) ?? 0) === 0 ? wholeCount(limits?.["cpu"]) : requested
  return String(Math.max(1, cpus))
}

// The node container's resources: the TrainJob's resourcesPerNode, else the runtime template's.
const nodeResources = (job: KubeObject, replicated: ReplicatedJob): JsonRecord | undefined => {
  const override = asRecord(at(job, "spec", "trainer", "resourcesPerNode"))
  if (override !== undefined) return override
  const node = asRecords(at(replicated.podTemplate, "spec", "containers")).find((c) => c["name"] === trainerContainerName)
  return asRecord(node?.["resources"])
}

// PET_* variables Trainer's torch plugin gives the trainer container, only when the TrainJob has a
// trainer section (the node rank is the pod's completion index, read through the downward API; the
// master is always the `node` job's first pod; torchtune gets no master address).
const torchEnv = (job: KubeObject, runtime: KubeObject, replicated: ReplicatedJob): ReadonlyArray<JsonRecord> => {
  const trainer = asRecord(at(job, "spec", "trainer"))
  if (at(runtime, "spec", "mlPolicy", "torch") === undefined || trainer === undefined) return []
  const name = nameOf(job)
  const command = asArray(trainer["command"])
  const torchTune = command.length === torchTuneEntrypoint.length && command.every((part, i) => part === torchTuneEntrypoint[i])
  return [
    { name: "PET_NNODES", value: String(replicated.parallelism) },
    { name: "PET_NPROC_PER_NODE", value: torchProcsPerNode(asNumber(trainer["numProcPerNode"]), nodeResources(job, replicated)) },
    { name: "PET_NODE_RANK", valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${completionIndexKey}']` } } },
    ...(torchTune
      ? []
      : [
          { name: "PET_MASTER_ADDR", value: `${name}-${trainerContainerName}-0-0.${name}` },
          { name: "PET_MASTER_PORT", value: String(torchMasterPort) }
        ])
  ]
}

// Each variable replaces one of its name where it stands, or is added at the end (Trainer's UpsertEnvVars).
const upsertEnv = (env: ReadonlyArray<JsonRecord>, more: ReadonlyArray<JsonRecord>): ReadonlyArray<JsonRecord> =>
  more.reduce<ReadonlyArray<JsonRecord>>((all, variable) => {
    const at = all.findIndex((existing) => existing["name"] === variable["name"])
    return at < 0 ? [...all, variable] : all.map((existing, i) => (i === at ? variable : existing))
  }, env)

const withTrainerCommand = (template: JsonRecord, job: KubeObject, extraEnv: ReadonlyArray<JsonRecord>): JsonRecord => {
  const trainer = asRecord(at(job, "spec", "trainer")) ?? {}
  const spec = asRecord(template["spec"]) ?? {}
  const containers = asRecords(spec["containers"]).map((container) => {
    if (container["name"] !== trainerContainerName) return container
    // The TrainJob's env first, then the plugin's, which wins over a variable of the same name.
    const env = upsertEnv(upsertEnv(asRecords(container["env"]), asRecords(trainer["env"])), extraEnv)
    return {
      ...container,
      ...(trainer["command"] === undefined ? {} : { command: trainer["command"] }),
      ...(trainer["args"] === undefined ? {} : { args: trainer["args"] }),
      ...(env.length === 0 ? {} : { env })
    }
  })
  return { ...template, spec: { ...spec, containers } }
}

const mergeContainers = (base: ReadonlyArray<JsonRecord>, patch: ReadonlyArray<JsonRecord>): ReadonlyArray<JsonRecord> =>
  base.map((container) => {
    const update = patch.find((candidate) => candidate["name"] === container["name"])
    if (update === undefined) return container
    const env = [...asRecords(container["env"]), ...asRecords(update["env"])]
    return { ...container, ...update, ...(env.length === 0 ? {} : { env }) }
  })

const applyPatch = (template: JsonRecord, patchTemplate: JsonRecord): JsonRecord => {
  const metadata = asRecord(template["metadata"]) ?? {}
  const spec = asRecord(template["spec"]) ?? {}
  const patchMeta = asRecord(patchTemplate["metadata"]) ?? {}
  const patchSpec = asRecord(patchTemplate["spec"]) ?? {}
  const merged = (from: JsonRecord, into: JsonRecord, key: string): JsonRecord => {
    const value = { ...(asRecord(into[key]) ?? {}), ...(asRecord(from[key]) ?? {}) }
    return Object.keys(value).length === 0 ? {} : { [key]: value }
  }
  const tolerations = [...asArray(spec["tolerations"]), ...asArray(patchSpec["tolerations"])]
  return {
    ...template,
    metadata: { ...metadata, ...merged(patchMeta, metadata, "labels"), ...merged(patchMeta, metadata, "annotations") },
    spec: {
      ...spec,
      ...merged(patchSpec, spec, "nodeSelector"),
      ...(tolerations.length === 0 ? {} : { tolerations }),
      containers: mergeContainers(asRecords(spec["containers"]), asRecords(patchSpec["containers"])),
      ...(spec["initContainers"] === undefined ? {} : { initContainers: mergeContainers(asRecords(spec["initContainers"]), asRecords(patchSpec["initContainers"])) })
    }
  }
}

/** The pod template of one replicated job of `job`, as Trainer renders it into the JobSet. */
export const renderedPodTemplate = (job: KubeObject, runtime: KubeObject, replicated: ReplicatedJob): JsonRecord => {
  // Every step below copies what it changes, so the runtime's (frozen) template is shared, not copied.
  const base = replicated.podTemplate
  const trained = replicated.isTrainerStep ? withTrainerCommand(withTrainerOverrides(base, job), job, torchEnv(job, runtime, replicated)) : base
  return runtimePatchesOf(job).reduce<JsonRecord>((template, patch) => {
    const entries = asRecords(at(patch, "trainingRuntimeSpec", "template", "spec", "replicatedJobs")).filter((entry) => entry["name"] === replicated.name)
    return entries.reduce<JsonRecord>((t, entry) => applyPatch(t, asRecord(at(entry, "template", "spec", "template")) ?? {}), template)
  }, trained)
}

/**
 * The node labels Kueue's admission promises for a replicated job: its runtime patch's nodeSelector
 * comes from the flavors and checks that admitted the Workload, which describe real nodes, so the
 * simulated node takes those on top of its own labels.
 */
export const admittedNodeLabels = (job: KubeObject, replicatedJob: string): Readonly<Record<string, string>> => {
  const patch = runtimePatchesOf(job).find((candidate) => candidate["manager"] === kueueManager)
  const entry = asRecords(at(patch, "trainingRuntimeSpec", "template", "spec", "replicatedJobs")).find((candidate) => candidate["name"] === replicatedJob)
  const selector = asRecord(at(entry, "template", "spec", "template", "spec", "nodeSelector")) ?? {}
  return Object.fromEntries(Object.entries(selector).filter((pair): pair is [string, string] => typeof pair[1] === "string"))
}
