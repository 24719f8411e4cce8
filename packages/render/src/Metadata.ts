import { runtimeLabel, type BackendConfig } from "./Config.ts"
import { admissionGatedBy, isLabelValue, isQualifiedName, valueAt } from "@dispatch/kube"
import { annotationKeys, attemptToken, comment, labelKeys, admissionGateName } from "./Names.ts"
import { KUEUE_QUEUE_LABEL, TRAINER_LABEL_PREFIX } from "./Upstream.ts"
import type { RuntimeRef, StartRequest } from "./Wire.ts"
import { isRecord} from "./Json.ts"

/** A label or annotation map. */
export type StringMap = Readonly<Record<string, string>>

/** The labels that identify a job's objects and pods: job id, submission, generation. */
export const identityLabels = (request: StartRequest, config: BackendConfig): StringMap => {
  const keys = labelKeys(config)
  return {
    [keys.jobId]: request.job,
    [keys.submission]: String(request.submission),
    [keys.generation]: String(request.generation)
  }
}

const attemptAnnotations = (request: StartRequest, config: BackendConfig): StringMap => {
  const keys = annotationKeys(config)
  return {
    [keys.comment]: comment(request.job, request.generation, request.submission, request.attempt),
    [keys.attemptToken]: attemptToken(request.attempt, request.generation, request.submission)
  }
}

/** The TrainJob's labels: identity, plus Kueue's queue label in Kueue mode. */
export const trainJobLabels = (request: StartRequest, config: BackendConfig): StringMap => ({
  ...identityLabels(request, config),
  ...(config.mode === "kueue" ? { [KUEUE_QUEUE_LABEL]: config.kueue.queue } : {})
})

/** The TrainJob's annotations: comment and attempt token, plus the closed start gate in Kueue mode. */
export const trainJobAnnotations = (request: StartRequest, config: BackendConfig): StringMap => ({
  ...attemptAnnotations(request, config),
  ...(config.mode === "kueue" ? { [admissionGatedBy]: admissionGateName(config) } : {})
})

/** Trainer's own labels on the source runtime (such as its framework), which the copy keeps; others are left behind. */
const trainerLabelsOf = (source: unknown): StringMap => {
  const labels = valueAt(source, ["metadata", "labels"])
  if (!isRecord(labels)) return {}
  const kept: Record<string, string> = {}
  for (const key of Object.keys(labels).sort()) {
    const value = labels[key]
    if (key.startsWith(TRAINER_LABEL_PREFIX) && isQualifiedName(key) && typeof value === "string" && isLabelValue(value)) kept[key] = value
  }
  return kept
}

/** The copy's labels: the source's Trainer labels, then identity. */
export const copyLabels = (request: StartRequest, config: BackendConfig, source: unknown): StringMap => ({
  ...trainerLabelsOf(source),
  ...identityLabels(request, config)
})

/** The copy's annotations: comment, attempt token and the source runtime (`<kind>/<name>`). */
export const copyAnnotations = (request: StartRequest, config: BackendConfig, source: RuntimeRef): StringMap => ({
  ...attemptAnnotations(request, config),
  [annotationKeys(config).sourceRuntime]: runtimeLabel(source)
})
