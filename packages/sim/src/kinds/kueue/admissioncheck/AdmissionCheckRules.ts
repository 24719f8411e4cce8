// What Kueue's AdmissionCheck CRD enforces: a controller name, which never changes.
import { type FieldError, invalidValue, requiredValue, wrongType } from "../../../apiserver/validation/FieldErrors.ts"
import { isJsonObject, valueAt } from "../../../apiserver/store/JsonValue.ts"
import { checkString } from "../../../apiserver/validation/SchemaChecks.ts"

/** Every problem with an AdmissionCheck (and, on update, with the change from `old`). */
export const checkAdmissionCheck = (object: Record<string, unknown>, old: Record<string, unknown> | undefined): ReadonlyArray<FieldError> => {
  const spec = object["spec"]
  if (!isJsonObject(spec)) return [spec === undefined ? requiredValue("spec") : wrongType("spec", spec, "object")]
  const name = spec["controllerName"]
  const oldName = valueAt(old, ["spec", "controllerName"])
  return [
    ...(name === undefined ? [requiredValue("spec.controllerName")] : checkString("spec.controllerName", name, 253, 1)),
    ...(oldName !== undefined && name !== undefined && oldName !== name ? [invalidValue("spec.controllerName", name, "field is immutable")] : [])
  ]
}
