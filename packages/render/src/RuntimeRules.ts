import { valueAt } from "@dispatch/kube"
import { runtimeLabel, sameRuntime, type BackendConfig } from "./Config.ts"
import { isJsonTree, isRecord } from "./Json.ts"
import { MAX_TRAINJOB_NAME, RESERVED_ENV_PREFIX } from "./Names.ts"
import { preview } from "./Preview.ts"
import { cappedRefusal, type Refusal } from "./Refusal.ts"
import { ANCESTOR_STEP_LABEL, ML_POLICIES, NODE, TRAINER_STEP } from "./Upstream.ts"
import type { JobSpec, RuntimeRef } from "./Wire.ts"

/** JobSet's pod name `<trainjob>-<replicatedJob>-<jobIdx>-<podIdx>-xxxxx` must be a 63-character label. */
export const MAX_POD_NAME = 63
// The '-' separators (3) and the '-xxxxx' random suffix (6) JobSet and the Job controller add.
const POD_NAME_FIXED = 3 + 6

/** The replicated jobs of a runtime, or undefined when the runtime has no such list. */
export const replicatedJobsOf = (runtime: unknown): ReadonlyArray<unknown> | undefined => {
  const jobs = valueAt(runtime, ["spec", "template", "spec", "replicatedJobs"])
  return Array.isArray(jobs) ? jobs : undefined
}

const nameOf = (job: unknown): string | undefined => {
  const name = valueAt(job, ["name"])
  return typeof name === "string" ? name : undefined
}

/** The runtime's trainer step: the replicated job labelled as the trainer, else the one named `node`. */
export const trainerStepOf = (runtime: unknown): { step?: Readonly<Record<string, unknown>>; problems: Array<string> } => {
  const jobs = (replicatedJobsOf(runtime) ?? []).filter(isRecord)
  const labelled = jobs.filter((job) => valueAt(job, ["template", "metadata", "labels", ANCESTOR_STEP_LABEL]) === TRAINER_STEP)
  if (labelled.length > 1) {
    const names = labelled.map((job) => preview(nameOf(job))).join(", ")
    return { problems: [`${labelled.length} replicated jobs (${names}) are labelled ${ANCESTOR_STEP_LABEL}: ${TRAINER_STEP}; exactly one trainer step is needed`] }
  }
  const step = labelled[0] ?? jobs.find((job) => nameOf(job) === NODE)
  if (step === undefined) {
    return { problems: [`no replicated job is labelled ${ANCESTOR_STEP_LABEL}: ${TRAINER_STEP} and none is named ${NODE}`] }
  }
  if (nameOf(step) === undefined) return { problems: ["the trainer step has no name"] }
  const containers = valueAt(step, ["template", "spec", "template", "spec", "containers"])
  const hasNode = Array.isArray(containers) && containers.some((c) => valueAt(c, ["name"]) === NODE)
  return hasNode ? { step, problems: [] } : { problems: [`trainer step ${preview(nameOf(step))} has no container named ${NODE}`] }
}

// What is not a whole number of at least one counts as one, so an index is never negative.
const count = (u: unknown): number => (Number.isSafeInteger(u) ? Math.max(1, u as number) : 1)

const digits = (n: number): number => String(n).length

const podNameReasons = (jobs: ReadonlyArray<unknown>, trainerStep: unknown, nodes: number): Array<string> => {
  const reasons: Array<string> = []
  for (const job of jobs) {
    const name = nameOf(job)
    if (name === undefined) continue
    const maxJobIndex = count(valueAt(job, ["replicas"])) - 1
    const declared = Math.max(count(valueAt(job, ["template", "spec", "parallelism"])), count(valueAt(job, ["template", "spec", "completions"])))
    // Trainer scales the step named node with numNodes; in MPI-style runtimes the labelled trainer step is
    // the launcher beside it. Counting the nodes for both can only over-count, never miss a long name.
    const pods = job === trainerStep || name === NODE ? Math.max(count(nodes), declared) : declared
    const length = MAX_TRAINJOB_NAME + name.length + digits(maxJobIndex) + digits(pods - 1) + POD_NAME_FIXED
    if (length > MAX_POD_NAME) {
      reasons.push(
        `replicated job ${preview(name)}: its pod names would be ${length} characters, more than ${MAX_POD_NAME}, for a ${MAX_TRAINJOB_NAME}-character TrainJob name and ${pods} pod(s) per job; the job would be accepted and never run`
      )
    }
  }
  return reasons
}

/** The ML policies a runtime sets (present and not null). */
export const mlPoliciesOf = (runtime: unknown): Array<(typeof ML_POLICIES)[number]> => {
  const policy = valueAt(runtime, ["spec", "mlPolicy"])
  // A policy set to null is not set, as Kubernetes reads it.
  return ML_POLICIES.filter((name) => valueAt(policy, [name]) != null)
}

/** The env prefixes Trainer's ML-policy plugins set themselves, and refuse from a job. */
export const POLICY_ENV_PREFIXES: Readonly<Partial<Record<(typeof ML_POLICIES)[number], string>>> = { torch: "PET_", mpi: "OMPI_", xgboost: "DMLC_" }

const mlPolicyReasons = (runtime: unknown, spec: JobSpec): Array<string> => {
  const set = mlPoliciesOf(runtime)
  const reasons: Array<string> = []
  if (set.length > 1) reasons.push(`mlPolicy sets ${set.length} policies (${set.join(", ")}); at most one is allowed`)
  if ((spec.procsPerNode ?? 0) > 0 && !set.includes("torch")) {
    reasons.push(`spec.procsPerNode is ${spec.procsPerNode}, which needs mlPolicy.torch; this runtime would ignore it`)
  }
  // Depends on the runtime, like ProcsPerNode: the same env is fine on a runtime of another policy.
  for (const policy of set) {
    const reserved = POLICY_ENV_PREFIXES[policy]
    if (reserved === undefined) continue
    for (const key of Object.keys(spec.env).sort()) {
      if (key.startsWith(reserved)) reasons.push(`spec.env[${preview(key)}]: keys beginning ${reserved} are set by Trainer for mlPolicy.${policy} runtimes`)
    }
  }
  return reasons
}

const reservedEnvReasons = (trainerStep: unknown): Array<string> => {
  const containers = valueAt(trainerStep, ["template", "spec", "template", "spec", "containers"])
  const node = Array.isArray(containers) ? containers.find((c) => valueAt(c, ["name"]) === NODE) : undefined
  const env = valueAt(node, ["env"])
  if (!Array.isArray(env)) return []
  return env
    .map((entry) => valueAt(entry, ["name"]))
    .filter((name): name is string => typeof name === "string" && name.startsWith(RESERVED_ENV_PREFIX))
    .map((name) => `trainer container ${NODE} already defines ${preview(name)}; keys beginning ${RESERVED_ENV_PREFIX} are dispatch's`)
}

/** The runtime rules of docs/runtime-requirements.md applied to a source runtime; every reason, prefixed by nothing. */
export const runtimeRuleReasons = (runtime: unknown, spec: JobSpec): Array<string> => {
  if (!isRecord(runtime) || !isRecord(runtime["spec"])) return ["has no spec"]
  if (!isJsonTree(runtime["spec"])) return ["its spec is not plain JSON data"]
  const jobs = replicatedJobsOf(runtime)
  if (jobs === undefined) return ["has no spec.template.spec.replicatedJobs list"]
  const { step, problems } = trainerStepOf(runtime)
  return [...problems, ...podNameReasons(jobs, step, spec.nodes), ...mlPolicyReasons(runtime, spec), ...reservedEnvReasons(step)]
}

/** Start step 2, before any read: a runtime outside the configured list is refused (ErrUnsupported)
 * without being read, so Start never reads arbitrary cluster objects. */
export const checkRuntimeListed = (config: BackendConfig, ref: RuntimeRef): Refusal | undefined =>
  config.runtimes.some((allowed) => sameRuntime(allowed, ref))
    ? undefined
    : cappedRefusal("ErrUnsupported", [`runtime ${runtimeLabel(ref)}: not one of the configured runtimes`])

/**
 * Start steps 2-3, pure part: a runtime outside the configured list or missing (undefined) is refused,
 * then the runtime rules; ErrUnsupported with every reason, or undefined when the runtime may be used.
 */
export const checkRuntime = (config: BackendConfig, ref: RuntimeRef, runtime: unknown, spec: JobSpec): Refusal | undefined => {
  const name = `runtime ${runtimeLabel(ref)}`
  const lookup: Array<string> = [...(checkRuntimeListed(config, ref)?.reasons ?? [])]
  if (runtime === undefined) lookup.push(`${name}: does not exist`)
  if (lookup.length > 0) return cappedRefusal("ErrUnsupported", lookup)
  const reasons = runtimeRuleReasons(runtime, spec).map((reason) => `${name}: ${reason}`)
  return reasons.length > 0 ? cappedRefusal("ErrUnsupported", reasons) : undefined
}
