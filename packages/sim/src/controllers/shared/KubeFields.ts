// Stored objects are untyped JSON; controllers read them through these narrowing accessors so that a
// malformed field reads as "absent" instead of throwing inside a reconcile loop.
import type { KubeObject } from "../../Api.ts"

/** A JSON object read from a stored Kubernetes object. */
export type JsonRecord = Readonly<Record<string, unknown>>

/** The value as a JSON object, or undefined. */
export const asRecord = (value: unknown): JsonRecord | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonRecord) : undefined

/** The value as an array (empty when it is not one). */
export const asArray = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

/** The value as a string, or undefined. */
export const asString = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

/** The value as a finite number, or undefined. */
export const asNumber = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined

/** The value at a path of object keys, or undefined when any step is missing. */
export const at = (value: unknown, ...path: ReadonlyArray<string>): unknown => {
  let current: unknown = value
  for (const key of path) {
    const record = asRecord(current)
    if (record === undefined) return undefined
    current = record[key]
  }
  return current
}

/** A string-to-string map (labels, annotations, nodeSelector), dropping non-string values. */
export const asStringMap = (value: unknown): Readonly<Record<string, string>> => {
  const record = asRecord(value) ?? {}
  const out: Record<string, string> = {}
  for (const [key, entry] of Object.entries(record)) if (typeof entry === "string") out[key] = entry
  return out
}

/** The object's metadata.name ("" when absent). */
export const nameOf = (object: KubeObject): string => asString(at(object, "metadata", "name")) ?? ""

/** The object's metadata.namespace, or undefined for cluster-scoped objects. */
export const namespaceOf = (object: KubeObject): string | undefined => asString(at(object, "metadata", "namespace"))

/** The object's metadata.uid ("" when absent). */
export const uidOf = (object: KubeObject): string => asString(at(object, "metadata", "uid")) ?? ""

/** The object's labels. */
export const labelsOf = (object: KubeObject): Readonly<Record<string, string>> => asStringMap(at(object, "metadata", "labels"))

/** The object's annotations. */
export const annotationsOf = (object: KubeObject): Readonly<Record<string, string>> =>
  asStringMap(at(object, "metadata", "annotations"))

/** Whether the object is being deleted (deletionTimestamp set). */
export const isDeleting = (object: KubeObject): boolean => at(object, "metadata", "deletionTimestamp") !== undefined

/** A deep copy of a JSON value, so that edits never reach the store's own object. */
export const copyJson = <A>(value: A): A => structuredClone(value)

/** Structural equality of two JSON values (key order matters, as it does for values built the same way). */
export const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)
