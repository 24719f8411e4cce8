// Stored objects are untyped JSON; controllers read them through these narrowing accessors so that a
// malformed field reads as "absent" instead of throwing inside a reconcile loop.
import { valueAt } from "@dispatch/kube"
import type { KubeObject } from "../../Api.ts"

/** A JSON object read from a stored Kubernetes object. */
export type JsonRecord = Readonly<Record<string, unknown>>

/** The value as a JSON object, or undefined. */
export const asRecord = (value: unknown): JsonRecord | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonRecord) : undefined

/** The value as an array (empty when it is not one). */
export const asArray = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

/** The entries of a list that are records (none when it is not a list). By a loop rather than flatMap, which
 * makes an array per entry: Trainer reads every container, env list and patch of a JobSet it renders through this. */
export const asRecords = (value: unknown): ReadonlyArray<JsonRecord> => {
  const out: Array<JsonRecord> = []
  for (const entry of asArray(value)) {
    const record = asRecord(entry)
    if (record !== undefined) out.push(record)
  }
  return out
}

/** The value as a string, or undefined. */
export const asString = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

/** The value as a finite number, or undefined. */
export const asNumber = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined

/** The value at a path of object keys, or undefined when any step is missing. */
export const at = (value: unknown, ...path: ReadonlyArray<string>): unknown => valueAt(value, path)

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

/**
 * Structural equality of two JSON values (key order matters, as it does for values built the same way):
 * whether their JSON texts are equal, found without writing them, and without entering a part both share.
 */
export const sameJson = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (typeof a === "string" && typeof b === "string") return false
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || !isPlain(a) || !isPlain(b)) return JSON.stringify(a) === JSON.stringify(b)
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i] ?? null, b[i] ?? null)) return false
    return true
  }
  // Members JSON leaves out (undefined, functions, symbols) are skipped on both sides.
  const ka = Object.keys(a).filter((k) => isWritten((a as JsonRecord)[k]))
  const kb = Object.keys(b).filter((k) => isWritten((b as JsonRecord)[k]))
  if (ka.length !== kb.length) return false
  for (let i = 0; i < ka.length; i++) {
    const key = ka[i] ?? ""
    if (key !== kb[i] || !sameJson((a as JsonRecord)[key], (b as JsonRecord)[key])) return false
  }
  return true
}

const isWritten = (value: unknown): boolean => value !== undefined && typeof value !== "function" && typeof value !== "symbol"

// An object JSON writes member by member: no toJSON of its own (a Date has one).
const isPlain = (value: object): boolean => typeof (value as { readonly toJSON?: unknown }).toJSON !== "function"
