// The minimal shape Kueue's Workload CRD enforces: pod sets (which never change) and admission check states.
import { duplicate, type FieldError, invalidValue, notSupported, requiredValue, wrongType } from "../../../apiserver/validation/FieldErrors.ts"
import { isJsonObject, jsonEqual, valueAt } from "../../../apiserver/store/JsonValue.ts"
import { dns1123LabelProblems } from "@dispatch/kube"
import { checkArray, checkBoolean, checkInteger, checkString } from "../../../apiserver/validation/SchemaChecks.ts"

/** The states an admission check entry on a Workload may have. */
export const admissionCheckStates: ReadonlyArray<string> = ["Pending", "Ready", "Retry", "Rejected"]

const checkPodSet = (podSet: unknown, i: number): ReadonlyArray<FieldError> => {
  const field = `spec.podSets[${i}]`
  if (!isJsonObject(podSet)) return [wrongType(field, podSet, "object")]
  const name = podSet["name"]
  return [
    ...checkString(`${field}.name`, name, 63),
    ...(typeof name === "string" ? dns1123LabelProblems(name).map((p) => invalidValue(`${field}.name`, name, p)) : []),
    ...checkInteger(`${field}.count`, podSet["count"], 0),
    ...checkInteger(`${field}.minCount`, podSet["minCount"], 1),
    ...(podSet["template"] === undefined ? [requiredValue(`${field}.template`)] : [])
  ]
}

const checkPodSets = (podSets: unknown): ReadonlyArray<FieldError> => {
  if (podSets === undefined) return [requiredValue("spec.podSets")]
  const shape = checkArray("spec.podSets", podSets, 18, 1)
  if (shape.length > 0 || !Array.isArray(podSets)) return shape
  const names = podSets.map((p) => valueAt(p, ["name"]))
  return [
    ...podSets.flatMap(checkPodSet),
    ...names.flatMap((n, i) => (names.indexOf(n) !== i ? [duplicate(`spec.podSets[${i}].name`, n)] : []))
  ]
}

const checkAdmissionChecks = (checks: unknown): ReadonlyArray<FieldError> => {
  const shape = checkArray("status.admissionChecks", checks, 8)
  if (shape.length > 0 || !Array.isArray(checks)) return shape
  return checks.flatMap((c, i): ReadonlyArray<FieldError> => {
    const field = `status.admissionChecks[${i}]`
    const state = valueAt(c, ["state"])
    return [
      ...(valueAt(c, ["name"]) === undefined ? [requiredValue(`${field}.name`)] : checkString(`${field}.name`, valueAt(c, ["name"]), 316, 1)),
      ...(state === undefined ? [requiredValue(`${field}.state`)] : []),
      ...(state !== undefined && !admissionCheckStates.includes(String(state)) ? [notSupported(`${field}.state`, state, admissionCheckStates)] : [])
    ]
  })
}

/** Every problem with a Workload (and, on update, with the change from `old`). */
export const checkWorkload = (object: Record<string, unknown>, old: Record<string, unknown> | undefined): ReadonlyArray<FieldError> => {
  const spec = object["spec"]
  if (!isJsonObject(spec)) return [spec === undefined ? requiredValue("spec") : wrongType("spec", spec, "object")]
  const oldPodSets = valueAt(old, ["spec", "podSets"])
  return [
    ...checkPodSets(spec["podSets"]),
    ...checkString("spec.queueName", spec["queueName"], 253),
    ...checkBoolean("spec.active", spec["active"]),
    ...(oldPodSets !== undefined && !jsonEqual(oldPodSets, spec["podSets"]) ? [invalidValue("spec.podSets", spec["podSets"], "field is immutable")] : []),
    ...checkAdmissionChecks(valueAt(object, ["status", "admissionChecks"]))
  ]
}
