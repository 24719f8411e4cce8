// policy/v1 PodDisruptionBudget: how many of a set of pods voluntary disruptions may take down at once.
// Nothing evicts pods in the simulator, so its status stays as created.
import type { KubeObject } from "../../../Api.ts"
import { defineKind } from "../../Kind.ts"
import { ageColumn, column, count, field, nameColumn } from "../../Columns.ts"
import { type FieldError, invalidValue } from "../../../apiserver/validation/FieldErrors.ts"
import { isJsonObject, withoutKey } from "../../../apiserver/store/JsonValue.ts"
import { conditionMessage, kindMessageFields } from "../../MessageFields.ts"
import { podDisruptionBudgetMessages } from "./PodDisruptionBudgetMessages.ts"

const object = (value: unknown): Record<string, unknown> => (isJsonObject(value) ? value : {})

// An int-or-string of a budget: a count or a percentage.
const amountErrors = (spec: Record<string, unknown>, key: string): ReadonlyArray<FieldError> => {
  const value = spec[key]
  if (typeof value === "number" && value < 0) return [invalidValue(`spec.${key}`, value, "must be greater than or equal to 0")]
  if (typeof value === "string" && !/^(100|[1-9]?[0-9])%$/.test(value)) return [invalidValue(`spec.${key}`, value, "must be an integer or percentage (e.g '5%')")]
  return []
}

const checkBudget = (budget: Record<string, unknown>): ReadonlyArray<FieldError> => {
  const spec = object(budget["spec"])
  const both = spec["minAvailable"] !== undefined && spec["maxUnavailable"] !== undefined
  return [...(both ? [invalidValue("spec", spec, "minAvailable and maxUnavailable cannot be both set")] : []), ...amountErrors(spec, "minAvailable"), ...amountErrors(spec, "maxUnavailable")]
}

// A new budget's status: its counts, all zero (they are not omitted when empty).
const prepareBudget = (budget: KubeObject): KubeObject => ({ ...withoutKey(budget, "status"), status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 } })

const amount = (o: KubeObject, key: string): string | number => {
  const value = field(o, "spec", key)
  return typeof value === "number" || typeof value === "string" ? value : "N/A"
}

/** PodDisruptionBudget. */
export const podDisruptionBudget = defineKind({
  group: "policy",
  versions: ["v1"],
  kind: "PodDisruptionBudget",
  listKind: "PodDisruptionBudgetList",
  plural: "poddisruptionbudgets",
  singular: "poddisruptionbudget",
  shortNames: ["pdb"],
  namespaced: true,
  hasStatus: true,
  protobuf: { ...conditionMessage, ...podDisruptionBudgetMessages },
  protobufMessage: "policy.v1.PodDisruptionBudget",
  fields: kindMessageFields({ ...conditionMessage, ...podDisruptionBudgetMessages }, "policy.v1.PodDisruptionBudget"),
  strategy: { prepareForCreate: prepareBudget, validate: checkBudget },
  columns: [
    nameColumn,
    column("Min Available", "string", "The minimum number or percentage of pods that must stay available.", (o) => String(amount(o, "minAvailable"))),
    column("Max Unavailable", "string", "The maximum number or percentage of pods that may be unavailable.", (o) => String(amount(o, "maxUnavailable"))),
    column("Allowed Disruptions", "integer", "How many pods may be disrupted now.", (o) => count(field(o, "status", "disruptionsAllowed"))),
    ageColumn
  ],
  descriptions: {
    spec: "The budget: a selector and either minAvailable or maxUnavailable.",
    "spec.selector": "Labels of the pods the budget covers.",
    "spec.minAvailable": "Pods (a count or a percentage) that must stay available.",
    "spec.maxUnavailable": "Pods (a count or a percentage) that may be unavailable.",
    status: "The budget's observed counts."
  }
})
