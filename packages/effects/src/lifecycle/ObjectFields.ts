// Reading the few fields the lifecycle looks at in objects as the API server returns them: untyped JSON,
// where any field may be missing or of the wrong type, so every read is total.

/** The record at `path` inside `value`, or undefined when any step is missing or not an object. */
export const recordAt = (value: unknown, path: ReadonlyArray<string>): Readonly<Record<string, unknown>> | undefined => {
  let current: unknown = value
  for (const key of path) {
    if (typeof current !== "object" || current === null || Array.isArray(current)) return undefined
    current = (current as Record<string, unknown>)[key]
  }
  return typeof current === "object" && current !== null && !Array.isArray(current) ? (current as Record<string, unknown>) : undefined
}

/** The value at `path` inside `value`, or undefined. */
export const valueAt = (value: unknown, path: ReadonlyArray<string>): unknown => {
  const parent = recordAt(value, path.slice(0, -1))
  const last = path[path.length - 1]
  return parent === undefined || last === undefined ? undefined : parent[last]
}

/** The string at `path`, or undefined. */
export const stringAt = (value: unknown, path: ReadonlyArray<string>): string | undefined => {
  const found = valueAt(value, path)
  return typeof found === "string" ? found : undefined
}

/** The array at `path`, or an empty one. */
export const arrayAt = (value: unknown, path: ReadonlyArray<string>): ReadonlyArray<unknown> => {
  const found = valueAt(value, path)
  return Array.isArray(found) ? found : []
}

/** One metav1.Condition as the lifecycle reads it. */
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
export const isTrue = (object: unknown, type: string): boolean => conditionOf(object, type)?.status === "True"
