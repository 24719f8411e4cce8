// metav1.Condition lists as controllers keep them: one entry per type, lastTransitionTime moving only
// when the status flips, and a cap on the list (TrainJob allows 8, Workload 16).
import { readOnce } from "./FrozenReads.ts"
import { asArray, asRecord, asString } from "./KubeFields.ts"

/** A metav1.Condition. */
export interface Condition {
  readonly type: string
  readonly status: "True" | "False" | "Unknown"
  readonly reason: string
  readonly message: string
  readonly lastTransitionTime: string
}

/** A condition to set: everything but the transition time, which setCondition decides. */
export type ConditionUpdate = Omit<Condition, "lastTransitionTime">

// Module state that is a pure memo cache of constant input (frozen lists, readOnce): every simulator may share it.
/** Reads a stored conditions list, skipping malformed entries (once per stored list: a look asks of it often). */
export const readConditions: (value: unknown) => ReadonlyArray<Condition> = readOnce((value) => parseConditions(value))

const parseConditions = (value: unknown): ReadonlyArray<Condition> =>
  asArray(value).flatMap((entry) => {
    const record = asRecord(entry)
    const type = asString(record?.["type"])
    const status = asString(record?.["status"])
    if (type === undefined || (status !== "True" && status !== "False" && status !== "Unknown")) return []
    return [{
      type,
      status,
      reason: asString(record?.["reason"]) ?? "",
      message: asString(record?.["message"]) ?? "",
      lastTransitionTime: asString(record?.["lastTransitionTime"]) ?? ""
    }]
  })

/** The condition of that type, if any. */
export const findCondition = (conditions: ReadonlyArray<Condition>, type: string): Condition | undefined =>
  conditions.find((condition) => condition.type === type)

/** Whether the condition of that type is present with status True. */
export const isConditionTrue = (conditions: ReadonlyArray<Condition>, type: string): boolean =>
  findCondition(conditions, type)?.status === "True"

/**
 * Sets a condition: replaces the entry of its type in place (keeping its lastTransitionTime when the
 * status did not change) or appends it; when the list would exceed `max`, the oldest other entries go.
 */
export const setCondition = (
  conditions: ReadonlyArray<Condition>,
  update: ConditionUpdate,
  now: string,
  max: number
): ReadonlyArray<Condition> => {
  const existing = findCondition(conditions, update.type)
  const next: Condition = {
    type: update.type,
    status: update.status,
    reason: update.reason,
    message: update.message,
    lastTransitionTime: existing !== undefined && existing.status === update.status ? existing.lastTransitionTime : now
  }
  const replaced = existing === undefined
    ? [...conditions.filter((condition) => condition.type !== update.type), next]
    : conditions.map((condition) => (condition.type === update.type ? next : condition))
  const unique = replaced.filter((condition, index) => replaced.findIndex((other) => other.type === condition.type) === index)
  const excess = unique.length - Math.max(max, 1)
  if (excess <= 0) return unique
  const dropped = new Set(
    unique
      .filter((condition) => condition.type !== update.type)
      .map((condition, index) => ({ condition, index }))
      .sort((a, b) => a.condition.lastTransitionTime.localeCompare(b.condition.lastTransitionTime) || a.index - b.index)
      .slice(0, excess)
      .map(({ condition }) => condition.type)
  )
  return unique.filter((condition) => !dropped.has(condition.type))
}

/** Removes the condition of that type. */
export const removeCondition = (conditions: ReadonlyArray<Condition>, type: string): ReadonlyArray<Condition> =>
  conditions.filter((condition) => condition.type !== type)
