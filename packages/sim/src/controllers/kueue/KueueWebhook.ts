// Kueue's webhooks: on a queue-labelled TrainJob's creation it closes the job (spec.suspend=true) and
// checks the admission gates; on updates of jobs and Workloads, gates may only be removed.
import type { Admission, KubeObject, SystemClient } from "../../Api.ts"
import { gateProblems, gateUpdateProblems } from "./AdmissionGates.ts"
import { annotationsOf, asRecord, labelsOf } from "../shared/KubeFields.ts"
import { admissionGatedByAnnotation, queueNameLabel } from "../shared/WellKnown.ts"

const gatesPath = `metadata.annotations[${admissionGatedByAnnotation}]`

const gatesOf = (object: KubeObject | undefined): string | undefined =>
  object === undefined ? undefined : annotationsOf(object)[admissionGatedByAnnotation]

const gateRules = (operation: "create" | "update", object: KubeObject, old: KubeObject | undefined): ReadonlyArray<string> =>
  operation === "create"
    ? gateProblems(gatesPath, gatesOf(object))
    : gateUpdateProblems(gatesPath, gatesOf(old), gatesOf(object))

// Changes are made to new objects, never to the one handed in (the webhook is readOnly).
const suspended = (job: KubeObject): KubeObject => {
  return { ...job, spec: { ...(asRecord(job["spec"]) ?? {}), suspend: true } }
}

/** Kueue's webhook for TrainJobs. */
export const kueueTrainJobWebhook: Admission = {
  name: "mtrainjob.kb.io",
  resource: "trainjobs",
  readOnly: true,
  admit(operation: "create" | "update", object: KubeObject, old: KubeObject | undefined, _system: SystemClient) {
    if (labelsOf(object)[queueNameLabel] === undefined) return { object }
    const problems = gateRules(operation, object, old)
    if (problems.length > 0) return { denied: problems }
    return { object: operation === "create" ? suspended(object) : object }
  }
}

/** Kueue's webhook for Workloads. */
export const kueueWorkloadWebhook: Admission = {
  name: "vworkload.kb.io",
  resource: "workloads",
  readOnly: true,
  admit(operation: "create" | "update", object: KubeObject, old: KubeObject | undefined, _system: SystemClient) {
    const problems = gateRules(operation, object, old)
    return problems.length > 0 ? { denied: problems } : { object }
  }
}
