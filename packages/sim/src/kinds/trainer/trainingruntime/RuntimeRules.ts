// What the TrainingRuntime and ClusterTrainingRuntime CRDs enforce beyond metadata: a non-empty spec
// and template, and at most one ML policy (torch, mpi, jax, xgboost, flux).
import { type FieldError, invalidValue, wrongType } from "../../../apiserver/validation/FieldErrors.ts"
import { isJsonObject } from "../../../apiserver/store/JsonValue.ts"

/** The ML policies of which a runtime may configure at most one. */
export const mlPolicies: ReadonlyArray<string> = ["torch", "mpi", "jax", "xgboost", "flux"]

const checkNonEmpty = (field: string, value: unknown): ReadonlyArray<FieldError> => {
  if (value === undefined) return []
  if (!isJsonObject(value)) return [wrongType(field, value, "object")]
  return Object.keys(value).length === 0 ? [invalidValue(field, 0, `${field} in body should have at least 1 properties`)] : []
}

/** Every problem with a (Cluster)TrainingRuntime. */
export const checkRuntime = (object: Record<string, unknown>): ReadonlyArray<FieldError> => {
  const spec = object["spec"]
  const shape = checkNonEmpty("spec", spec)
  if (shape.length > 0 || !isJsonObject(spec)) return shape
  const mlPolicy = spec["mlPolicy"]
  const configured = isJsonObject(mlPolicy) ? mlPolicies.filter((p) => mlPolicy[p] !== undefined) : []
  return [
    ...checkNonEmpty("spec.template", spec["template"]),
    ...(mlPolicy !== undefined && !isJsonObject(mlPolicy) ? [wrongType("spec.mlPolicy", mlPolicy, "object")] : []),
    ...(configured.length > 1 ? [invalidValue("spec.mlPolicy", mlPolicy, "Only one of the policy can be configured")] : [])
  ]
}
