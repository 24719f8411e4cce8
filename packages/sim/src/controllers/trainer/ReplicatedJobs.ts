// The replicated jobs a TrainJob will run, read from its runtime: their names, how many Jobs and pods
// each has, and their containers. JobSet names pods `<trainjob>-<replicatedJob>-<jobIdx>-<podIdx>-xxxxx`
// and needs that to be an RFC 1035 label; a runtime breaking this passes admission and never runs.
import { isRfc1035Label } from "@dispatch/kube"
import type { KubeObject } from "../../Api.ts"
import { asArray, asNumber, asRecord, asString, at, labelsOf, type JsonRecord } from "../shared/KubeFields.ts"
import { readOnce } from "../shared/FrozenReads.ts"
import { ancestorStepLabel, trainerContainerName } from "../shared/WellKnown.ts"

/** One replicated job of a runtime, as a TrainJob would run it. */
export interface ReplicatedJob {
  readonly name: string
  /** Jobs of this replicated job (JobSet `replicas`). */
  readonly replicas: number
  /** Pods per Job (numNodes for the trainer step). */
  readonly parallelism: number
  readonly isTrainerStep: boolean
  readonly containers: ReadonlyArray<string>
  readonly initContainers: ReadonlyArray<string>
  /** The Job's pod template, as the runtime gives it. */
  readonly podTemplate: JsonRecord
}

const containerNames = (podSpec: unknown, key: string): ReadonlyArray<string> =>
  asArray(at(podSpec, key)).flatMap((container) => {
    const name = asString(asRecord(container)?.["name"])
    return name === undefined ? [] : [name]
  })

const positiveInt = (value: unknown, fallback: number): number => {
  const n = asNumber(value)
  return n === undefined || n < 1 ? fallback : Math.floor(n)
}

// Replicated jobs by runtime spec (read once per stored spec), then by the job's own numNodes (the only
// part of the job they read).
// Module state that is a pure memo cache of constant input (frozen specs, readOnce): every simulator may share it.
const byNumNodes = readOnce(() => new Map<number | undefined, ReadonlyArray<ReplicatedJob>>())

/** The replicated jobs of `runtime` as `job` would run them. */
export const replicatedJobsOf = (runtime: KubeObject, job: KubeObject): ReadonlyArray<ReplicatedJob> => {
  const numNodes = at(job, "spec", "trainer", "numNodes")
  if (numNodes !== undefined && typeof numNodes !== "number") return readReplicatedJobs(runtime, numNodes)
  const known = byNumNodes(runtime["spec"])
  const hit = known.get(numNodes)
  if (hit !== undefined) return hit
  const jobs = readReplicatedJobs(runtime, numNodes)
  known.set(numNodes, jobs)
  return jobs
}

const readReplicatedJobs = (runtime: KubeObject, jobNumNodes: unknown): ReadonlyArray<ReplicatedJob> => {
  const numNodes = positiveInt(jobNumNodes ?? at(runtime, "spec", "mlPolicy", "numNodes"), 1)
  return asArray(at(runtime, "spec", "template", "spec", "replicatedJobs")).flatMap((entry) => {
    const name = asString(asRecord(entry)?.["name"])
    if (name === undefined) return []
    const step = labelsOf({ metadata: asRecord(at(entry, "template", "metadata")) ?? {} })[ancestorStepLabel]
    const isTrainerStep = step === undefined ? name === trainerContainerName : step === "trainer"
    const podTemplate = asRecord(at(entry, "template", "spec", "template")) ?? {}
    return [{
      name,
      replicas: positiveInt(asRecord(entry)?.["replicas"], 1),
      parallelism: isTrainerStep ? numNodes : positiveInt(at(entry, "template", "spec", "parallelism"), 1),
      isTrainerStep,
      containers: containerNames(podTemplate["spec"], "containers"),
      initContainers: containerNames(podTemplate["spec"], "initContainers"),
      podTemplate
    }]
  })
}

/** The longest pod name JobSet would give a pod of this replicated job. */
export const longestPodName = (trainJobName: string, job: Pick<ReplicatedJob, "name" | "replicas" | "parallelism">): string =>
  `${trainJobName}-${job.name}-${job.replicas - 1}-${job.parallelism - 1}-xxxxx`

/** The replicated jobs whose pod names would not be valid: the job then silently never runs. */
export const unschedulableJobs = (trainJobName: string, jobs: ReadonlyArray<ReplicatedJob>): ReadonlyArray<string> =>
  jobs.filter((job) => !isRfc1035Label(longestPodName(trainJobName, job))).map((job) => job.name)
