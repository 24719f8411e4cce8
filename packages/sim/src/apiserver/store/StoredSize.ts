// etcd's request limit, which is what bounds an object's size on a real cluster: the API server takes
// bodies up to 3 MiB, then etcd refuses to store an object whose encoding is over 1.5 MiB. Custom
// resources are stored as JSON, so the measure is the UTF-8 length of the object's JSON.
import type { ApiResponse, KubeObject } from "../../Api.ts"
import { isDeeplyFrozen } from "./JsonValue.ts"

/** etcd's default --max-request-bytes: 1.5 MiB. */
export const maxStoredObjectBytes = 1_572_864

const encoder = new TextEncoder()

/** The UTF-8 length of an object's JSON. */
export const storedSize = (object: KubeObject): number => encoder.encode(JSON.stringify(object)).length

// Lengths of frozen parts, which never change: a new version of an object is measured by what is new in
// it. Only the top levels of a new version are walked (where a write replaces a few keys and shares the
// rest); below them, and for a frozen part measured the first time, JSON.stringify is faster than a walk.
const lengths = new WeakMap<object, number>()
const walkedLevels = 2

const isOmitted = (item: unknown): boolean => item === undefined || typeof item === "function" || typeof item === "symbol"

/** The length of a JSON value's JSON.stringify text (in UTF-16 units), without building the text for parts measured before. */
export const jsonLength = (value: unknown, level = 0): number => {
  if (typeof value !== "object" || value === null) return JSON.stringify(value)?.length ?? 0
  const known = lengths.get(value)
  if (known !== undefined) return known
  if (isDeeplyFrozen(value)) {
    const length = JSON.stringify(value).length
    lengths.set(value, length)
    return length
  }
  if (level >= walkedLevels) return JSON.stringify(value).length
  let length = 2
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      length += (i > 0 ? 1 : 0) + (isOmitted(item) ? 4 : jsonLength(item, level + 1))
    })
    return length
  }
  let first = true
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key]
    if (isOmitted(item)) continue
    length += (first ? 0 : 1) + JSON.stringify(key).length + 1 + jsonLength(item, level + 1)
    first = false
  }
  return length
}

const isTooLarge = (object: KubeObject): boolean => {
  const length = jsonLength(object)
  // A UTF-16 unit takes one to three UTF-8 bytes: only a string near the limit needs encoding to tell.
  if (length > maxStoredObjectBytes) return true
  if (length * 3 <= maxStoredObjectBytes) return false
  return encoder.encode(JSON.stringify(object)).length > maxStoredObjectBytes
}

/**
 * etcd's refusal of an object too large to store, or undefined when it fits. The API server passes
 * etcd's error through as a 500 Status with no reason (kubectl prints "Error from server: etcdserver:
 * request is too large").
 */
export const tooLargeToStore = (object: KubeObject): ApiResponse | undefined =>
  isTooLarge(object)
    ? { code: 500, body: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "etcdserver: request is too large", code: 500 } }
    : undefined
