import { valueAt } from "@dispatch/kube"
import { Result } from "effect"
import { limitReasons } from "./AdapterLimits.ts"
import type { BackendConfig } from "./Config.ts"
import { extensionReasons, runtimeRefOf } from "./Extensions.ts"
import { cloneJson, type KubeObject } from "./Json.ts"
import { validateJobSpec } from "./JobSpecValidate.ts"
import { trainJobName } from "./Names.ts"
import { cappedRefusal, type Refusal } from "./Refusal.ts"
import { requestReasons } from "./RequestChecks.ts"
import { renderRuntimeCopy } from "./RuntimeCopy.ts"
import { checkRuntime, mlPoliciesOf, replicatedJobsOf, trainerStepOf } from "./RuntimeRules.ts"
import { renderTrainJob } from "./TrainJob.ts"
import type { StartRequest } from "./Wire.ts"

/** The two objects Start creates, in the order it creates them. */
export interface Manifests {
  readonly name: string
  readonly namespace: string
  readonly runtimeCopy: KubeObject
  readonly trainJob: KubeObject
}

/**
 * Start step 4's tables. Reasons of both kinds may arise; the refusal is ErrInvalid when any reason is
 * ErrInvalid (the request is wrong on every backend) and carries all reasons, in the tables' order:
 * request, JobSpec.Validate, limits, extensions (invalid, then unsupported). Otherwise ErrUnsupported.
 */
export const tableRefusal = (request: StartRequest): Refusal | undefined => {
  const extensions = extensionReasons(request.spec)
  const invalid = [...requestReasons(request), ...validateJobSpec(request.spec), ...limitReasons(request.spec), ...extensions.invalid]
  if (invalid.length > 0) return cappedRefusal("ErrInvalid", [...invalid, ...extensions.unsupported])
  if (extensions.unsupported.length > 0) return cappedRefusal("ErrUnsupported", extensions.unsupported)
  return undefined
}

/**
 * Renders a Start, in the seed's order: the RuntimeRef extension (ErrInvalid), the runtime's list and
 * rules (ErrUnsupported), then the tables; on success the runtime copy and the TrainJob.
 */
export const renderStart = (request: StartRequest, config: BackendConfig, runtime: unknown): Result.Result<Manifests, Refusal> => {
  const ref = runtimeRefOf(request)
  if (Result.isFailure(ref)) return Result.fail(ref.failure)
  const unsupported = checkRuntime(config, ref.success, runtime, request.spec)
  if (unsupported !== undefined) return Result.fail(unsupported)
  const refused = tableRefusal(request)
  if (refused !== undefined) return Result.fail(refused)

  // checkRuntime has proved the spec is plain JSON and the trainer step exists (so the list of
  // replicated jobs does too).
  const sourceSpec = cloneJson(valueAt(runtime, ["spec"]))!
  const trainerStep = String(valueAt(trainerStepOf(runtime).step, ["name"]))
  const torch = mlPoliciesOf(runtime).includes("torch")
  const steps = replicatedJobsOf(runtime)!.flatMap((job) => {
    const stepName = valueAt(job, ["name"])
    return typeof stepName === "string" ? [stepName] : []
  })
  const name = trainJobName(request.job, request.submission)
  return Result.succeed({
    name,
    namespace: config.namespace,
    runtimeCopy: renderRuntimeCopy(request, config, name, ref.success, runtime, sourceSpec),
    trainJob: renderTrainJob(request, config, name, trainerStep, torch, steps)
  })
}
