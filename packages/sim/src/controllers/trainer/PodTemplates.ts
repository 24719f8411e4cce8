// The pod template Trainer's runtime framework renders for one replicated job of a TrainJob: the
// runtime's template, then (on the trainer step's `node` container) spec.trainer's image, command,
// args, env and resources and the variables the torch ML policy injects, then every runtime patch's
// labels, annotations, node selector, tolerations and container fields for that replicated job.
import type { KubeObject } from "../../Api.ts"
import { asArray, asNumber, asRecord, asRecords, asString, at, nameOf, type JsonRecord } from "../shared/KubeFields.ts"
import { withTrainerOverrides } from "../kueue/PodSets.ts"
import type { ReplicatedJob } from "./ReplicatedJobs.ts"
import { runtimePatchesOf } from "./RuntimePatches.ts"
import { kueueManager, trainerContainerName } from "../shared/WellKnown.ts"
import { completionIndexKey } from "../../kinds/batch/JobNames.ts"

/** The port torchrun's rendezvous listens on in Trainer's torch plugin. */
export const torchMasterPort = 29400

// PET_* variables Trainer's torch plugin gives the trainer container (the node rank is the pod's
// completion index, read through the downward API as Trainer does).
const torchEnv = (job: KubeObject, runtime: KubeObject, replicated: ReplicatedJob): ReadonlyArray<JsonRecord> => {
  if (at(runtime, "spec", "mlPolicy", "torch") === undefined) return []
  const procs = at(job, "spec", "trainer", "numProcPerNode") ?? at(runtime, "spec", "mlPolicy", "torch", "numProcPerNode") ?? "auto"
  const name = nameOf(job)
  return [
    { name: "PET_NNODES", value: String(replicated.parallelism) },
    { name: "PET_NPROC_PER_NODE", value: String(asNumber(procs) ?? asString(procs) ?? "auto") },
    { name: "PET_NODE_RANK", valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${completionIndexKey}']` } } },
    { name: "PET_MASTER_ADDR", value: `${name}-${replicated.name}-0-0.${name}` },
    { name: "PET_MASTER_PORT", value: String(torchMasterPort) }
  ]
}

const withTrainerCommand = (template: JsonRecord, job: KubeObject, extraEnv: ReadonlyArray<JsonRecord>): JsonRecord => {
  const trainer = asRecord(at(job, "spec", "trainer")) ?? {}
  const spec = asRecord(template["spec"]) ?? {}
  const containers = asRecords(spec["containers"]).map((container) => {
    if (container["name"] !== trainerContainerName) return container
    const env = [...asRecords(container["env"]), ...extraEnv, ...asRecords(trainer["env"])]
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
