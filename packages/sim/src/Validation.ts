// All the schema-level checks for one write, by resource: metadata rules for every object, then the
// resource's own rules. Admission webhooks are run elsewhere.
import type { Resource } from "./Api.ts"
import type { FieldError } from "./FieldErrors.ts"
import { isJsonObject } from "./JsonValue.ts"
import { checkAdmissionCheck, checkWorkload } from "./KueueRules.ts"
import { checkObjectMeta } from "./ObjectMetaRules.ts"
import { checkRuntime } from "./RuntimeRules.ts"
import { checkTrainJob } from "./TrainJobRules.ts"

const resourceRules: Readonly<
  Record<string, (object: Record<string, unknown>, old: Record<string, unknown> | undefined) => ReadonlyArray<FieldError>>
> = {
  trainjobs: checkTrainJob,
  trainingruntimes: checkRuntime,
  clustertrainingruntimes: checkRuntime,
  workloads: checkWorkload,
  admissionchecks: checkAdmissionCheck
}

/** Every problem with an object about to be stored (`old` on update). */
export const validate = (resource: Resource, object: Record<string, unknown>, old: Record<string, unknown> | undefined): ReadonlyArray<FieldError> => {
  const metadata = isJsonObject(object["metadata"]) ? object["metadata"] : {}
  return [...checkObjectMeta(resource, metadata), ...(resourceRules[resource.plural]?.(object, old) ?? [])]
}
