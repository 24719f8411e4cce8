/** @dispatch/render: the pure core of Start; from a request, a config and a runtime to two objects or every reason not. */
export { ErrorKinds, MAX_REASONS, cappedRefusal, refusal, type ErrorKind, type Refusal } from "./Refusal.ts"
export { Config, Duration, ImageExtension, JobSpec, KueueConfig, RuntimeRef, StartRequest, Timeouts } from "./Wire.ts"
export { decodeStartRequest } from "./StartRequest.ts"
export { ConfigDefaults, MAX_TIMEOUT_MS, decodeConfig, runtimeLabel, sameRuntime, type BackendConfig, type KueueSettings } from "./Config.ts"
export { IMAGE_EXTENSION, RUNTIME_REF_EXTENSION, SHARED_CHECKPOINT_EXTENSION, runtimeRefOf } from "./Extensions.ts"
export { checkRuntime, checkRuntimeListed, trainerStepOf } from "./RuntimeRules.ts"
export { renderStart, tableRefusal, type Manifests } from "./Render.ts"
export { compareReadBack, type ReadBackOptions } from "./ReadBack.ts"
export { copyMatchesSource } from "./RuntimeCopy.ts"
export { PROBE_IMAGE, PROBE_JOB_ID, PROBE_SELECTOR_VALUE, probeRequest } from "./Probe.ts"
export {
  DEFAULT_LABEL_DOMAIN,
  DispatchEnv,
  MAX_TRAINJOB_NAME,
  RESERVED_ENV_PREFIX,
  annotationKeys,
  labelKeys,
  patchManager,
  probeSelectorKey,
  admissionGateName,
  trainJobName,
  jobKeyOfName,
  type AnnotationKeys,
  type LabelKeys
} from "./Names.ts"
export { PROLOGUE, PROLOGUE_NAME, WORKDIR_MISSING_EXIT, prologueCommand } from "./Prologue.ts"
export { ceilSeconds, parseGoDuration } from "./Duration.ts"
export { isJobId } from "./JobId.ts"
export { KUEUE_QUEUE_LABEL, TRAINER_API_VERSION, TRAINER_CONTROLLER } from "./Upstream.ts"
export type { JsonValue, KubeObject } from "./Json.ts"
