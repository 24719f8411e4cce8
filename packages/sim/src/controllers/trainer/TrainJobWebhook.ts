// Trainer's validating and defaulting webhook for TrainJobs: the rules that need another object (the
// runtime must exist; patches may aim only at its replicated jobs and containers; env names its ML policy
// reserves), and the time stamps it writes on runtime patches. Rules that need no other object (patches
// change only while suspended, immutable fields) are the store's validation (TrainJobRules.ts).
import type { Admission, KubeObject, SystemClient } from "../../Api.ts"
import { asArray, asRecord, asString, at } from "../shared/KubeFields.ts"
import { replicatedJobsOf } from "./ReplicatedJobs.ts"
import { patchesChanged, runtimePatchesOf, runtimePatchProblems, stampPatchTimes } from "./RuntimePatches.ts"
import { lookUpRuntime } from "./Runtimes.ts"
import { formatTimestamp } from "../shared/Timestamps.ts"

/** Env name prefixes each ML policy reserves for the variables Trainer sets itself. */
const reservedEnvPrefixes: ReadonlyArray<readonly [policy: string, prefix: string]> = [
  ["torch", "PET_"],
  ["mpi", "OMPI_"],
  ["xgboost", "DMLC_"]
]

const reservedEnvProblems = (job: KubeObject, runtime: KubeObject): ReadonlyArray<string> => {
  const mlPolicy = asRecord(at(runtime, "spec", "mlPolicy")) ?? {}
  const prefixes = reservedEnvPrefixes.filter(([policy]) => mlPolicy[policy] !== undefined).map(([, prefix]) => prefix)
  return asArray(at(job, "spec", "trainer", "env")).flatMap((entry, index) => {
    const name = asString(asRecord(entry)?.["name"]) ?? ""
    const prefix = prefixes.find((candidate) => name.startsWith(candidate))
    return prefix === undefined
      ? []
      : [`spec.trainer.env[${index}].name: Invalid value: "${name}": names starting with ${prefix} are reserved by the runtime's ML policy`]
  })
}

// Changes are made to new objects, never to the one handed in (the webhook is readOnly).
const withPatches = (job: KubeObject, patches: ReadonlyArray<unknown>): KubeObject => {
  if (patches.length === 0) return job
  const spec = asRecord(job["spec"])
  return spec === undefined ? job : { ...job, spec: { ...spec, runtimePatches: patches } }
}

/** Trainer's TrainJob webhook. */
export const trainJobWebhook: Admission = {
  name: "validate.trainjob.trainer.kubeflow.org",
  resource: "trainjobs",
  readOnly: true,
  admit(operation: "create" | "update", object: KubeObject, old: KubeObject | undefined, system: SystemClient) {
    // A write that keeps the very spec it replaces (Trainer's own status writes) keeps its patches too.
    if (operation === "update" && old !== undefined && object["spec"] === old["spec"]) return { object }
    const patches = runtimePatchesOf(object)
    const oldPatches = runtimePatchesOf(old)
    // Updates that leave the patches alone need no runtime: everything else here is checked at creation.
    if (operation === "update" && !patchesChanged(oldPatches, patches)) return { object }
    const lookup = lookUpRuntime(system, object)
    const problems: Array<string> = []
    if (operation === "create") {
      if ("problem" in lookup) problems.push(lookup.problem)
      else problems.push(...reservedEnvProblems(object, lookup.runtime))
    }
    if ("runtime" in lookup) {
      problems.push(...runtimePatchProblems(patches, replicatedJobsOf(lookup.runtime, object)))
    }
    if (problems.length > 0) return { denied: problems }
    return { object: withPatches(object, stampPatchTimes(oldPatches, patches, formatTimestamp(system.now()))) }
  }
}
