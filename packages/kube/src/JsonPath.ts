// Reading fields of objects as the API server returns them: untyped JSON, where any field may be
// missing or of the wrong type, so every read is total. A step reads an object's own property (never
// one it inherits, such as `constructor`) or, for a numeric step, an array's item.

/** One step of a path: an object's key, or an array's index. */
export type PathStep = string | number

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const step = (value: unknown, key: PathStep): unknown => {
  if (typeof key === "number") return Array.isArray(value) ? value[key] : undefined
  return isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined
}

/** The value at `path` inside `value`, or undefined where the path leaves the objects and arrays. */
export const valueAt = (value: unknown, path: ReadonlyArray<PathStep>): unknown => {
  let current = value
  for (const key of path) {
    current = step(current, key)
    if (current === undefined) return undefined
  }
  return current
}

/** The object at `path`, or undefined when it is missing or not an object. */
export const recordAt = (value: unknown, path: ReadonlyArray<PathStep>): Readonly<Record<string, unknown>> | undefined => {
  const found = valueAt(value, path)
  return isRecord(found) ? found : undefined
}

/** The string at `path`, or undefined. */
export const stringAt = (value: unknown, path: ReadonlyArray<PathStep>): string | undefined => {
  const found = valueAt(value, path)
  return typeof found === "string" ? found : undefined
}

/** The array at `path`, or an empty one. */
export const arrayAt = (value: unknown, path: ReadonlyArray<PathStep>): ReadonlyArray<unknown> => {
  const found = valueAt(value, path)
  return Array.isArray(found) ? found : []
}
