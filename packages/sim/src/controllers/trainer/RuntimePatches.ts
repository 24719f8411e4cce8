// spec.runtimePatches: what a patch may target (only replicated jobs and containers the runtime has, and
// never env on the trainer container), and the time stamp Trainer's webhook puts on new or changed entries.
import { asArray, asRecord, asRecords, asString, at, sameJson, type JsonRecord } from "../shared/KubeFields.ts"
import type { ReplicatedJob } from "./ReplicatedJobs.ts"
import { trainerContainerName } from "../shared/WellKnown.ts"

/** The runtimePatches list of a TrainJob. */
export const runtimePatchesOf = (job: unknown): ReadonlyArray<JsonRecord> => asRecords(at(job, "spec", "runtimePatches"))

/** The manager of a runtime patch entry. */
export const managerOf = (patch: JsonRecord): string => asString(patch["manager"]) ?? ""

const patchedContainers = (
  where: string,
  podSpec: unknown,
  key: "containers" | "initContainers",
  known: ReadonlyArray<string>,
  isTrainerStep: boolean
): ReadonlyArray<string> =>
  asArray(at(podSpec, key)).flatMap((entry, index) => {
    const name = asString(asRecord(entry)?.["name"]) ?? ""
    const path = `${where}.${key}[${index}]`
    const problems: Array<string> = []
    if (!known.includes(name)) problems.push(`${path}.name: Not found: "${name}" is not a ${key === "containers" ? "container" : "init container"} of the runtime`)
    if (key === "containers" && isTrainerStep && name === trainerContainerName && asRecord(entry)?.["env"] !== undefined) {
      problems.push(`${path}.env: Forbidden: env of the "${trainerContainerName}" container is set through spec.trainer.env`)
    }
    return problems
  })

/** Every reason the patches may not apply to a runtime with these replicated jobs. */
export const runtimePatchProblems = (
  patches: ReadonlyArray<JsonRecord>,
  jobs: ReadonlyArray<ReplicatedJob>
): ReadonlyArray<string> =>
  patches.flatMap((patch, patchIndex) =>
    asArray(at(patch, "trainingRuntimeSpec", "template", "spec", "replicatedJobs")).flatMap((entry, jobIndex) => {
      const where = `spec.runtimePatches[${patchIndex}].trainingRuntimeSpec.template.spec.replicatedJobs[${jobIndex}]`
      const name = asString(asRecord(entry)?.["name"]) ?? ""
      const job = jobs.find((candidate) => candidate.name === name)
      if (job === undefined) return [`${where}.name: Not found: "${name}" is not a replicated job of the runtime`]
      const podSpec = at(entry, "template", "spec", "template", "spec")
      const podWhere = `${where}.template.spec.template.spec`
      return [
        ...patchedContainers(podWhere, podSpec, "containers", job.containers, job.isTrainerStep),
        ...patchedContainers(podWhere, podSpec, "initContainers", job.initContainers, job.isTrainerStep)
      ]
    })
  )

/** Whether two patch lists differ (ignoring the time stamps the webhook owns). */
export const patchesChanged = (before: ReadonlyArray<JsonRecord>, after: ReadonlyArray<JsonRecord>): boolean => {
  const strip = (patches: ReadonlyArray<JsonRecord>) => patches.map(({ time: _time, ...rest }) => rest)
  return !sameJson(strip(before), strip(after))
}

/** Stamps `time` on entries that are new or whose content changed; keeps the old stamp otherwise. */
export const stampPatchTimes = (
  before: ReadonlyArray<JsonRecord>,
  after: ReadonlyArray<JsonRecord>,
  now: string
): ReadonlyArray<JsonRecord> =>
  after.map((patch) => {
    const old = before.find((candidate) => managerOf(candidate) === managerOf(patch))
    const unchanged = old !== undefined && !patchesChanged([old], [patch])
    const time = unchanged ? (asString(old["time"]) ?? now) : now
    return { ...patch, time }
  })
