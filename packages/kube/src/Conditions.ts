// metav1.Condition, as a reader of untyped objects sees it in `status.conditions`.
import { arrayAt, stringAt } from "./JsonPath.ts"

/** One condition's status, reason and message ("" for any that is missing). */
export interface ConditionView {
  readonly status: string
  readonly reason: string
  readonly message: string
}

/** The condition of that type in `status.conditions`, if any. */
export const conditionOf = (object: unknown, type: string): ConditionView | undefined => {
  const found = arrayAt(object, ["status", "conditions"]).find((c) => stringAt(c, ["type"]) === type)
  if (found === undefined) return undefined
  return { status: stringAt(found, ["status"]) ?? "", reason: stringAt(found, ["reason"]) ?? "", message: stringAt(found, ["message"]) ?? "" }
}

/** Whether the condition of that type is present with status True. */
export const isConditionTrue = (object: unknown, type: string): boolean => conditionOf(object, type)?.status === "True"
