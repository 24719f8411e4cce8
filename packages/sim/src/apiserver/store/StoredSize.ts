// etcd's request limit, which is what bounds an object's size on a real cluster: the API server takes
// bodies up to 3 MiB, then etcd refuses to store an object whose encoding is over 1.5 MiB. Custom
// resources are stored as JSON, so the measure is the UTF-8 length of the object's JSON.
import type { ApiResponse, KubeObject } from "../../Api.ts"
import { freezeParts, isDeeplyFrozen } from "./JsonValue.ts"

/** etcd's default --max-request-bytes: 1.5 MiB. */
export const maxStoredObjectBytes = 1_572_864

const encoder = new TextEncoder()

/** The UTF-8 length of an object's JSON. */
export const storedSize = (object: KubeObject): number => encoder.encode(JSON.stringify(object)).length

// The JSON length of frozen parts, which never change: a write that keeps a stored part (the spec, on a
// status update) does not serialise it again. Only an object's top-level parts are kept here.
// Module state that is a pure memo cache of constant input (frozen parts): every simulator may share it.
const frozenLengths = new WeakMap<object, number>()

const partLength = (value: unknown): number => {
  if (!isDeeplyFrozen(value)) return JSON.stringify(value).length
  const known = frozenLengths.get(value as object)
  if (known !== undefined) return known
  const length = JSON.stringify(value).length
  frozenLengths.set(value as object, length)
  return length
}

/** The length of an object's JSON in UTF-16 units (`JSON.stringify(object).length`), its frozen top-level parts measured once. */
export const jsonLength = (object: KubeObject): number => {
  let length = 2
  let members = 0
  for (const key of Object.keys(object)) {
    const value = object[key]
    if (value === undefined) continue
    length += JSON.stringify(key).length + 1 + partLength(value)
    members++
  }
  return length + Math.max(0, members - 1)
}

// The object's parts are frozen here, as the store will freeze them: the bound they then carry settles
// almost every write without serialising the object.
const isTooLarge = (object: KubeObject): boolean => {
  if (freezeParts(object) <= maxStoredObjectBytes) return false
  const length = jsonLength(object)
  // A UTF-16 unit takes one to three UTF-8 bytes: only a string near the limit needs encoding to tell.
  if (length > maxStoredObjectBytes) return true
  if (length * 3 <= maxStoredObjectBytes) return false
  return encoder.encode(JSON.stringify(object)).length > maxStoredObjectBytes
}

/**
 * etcd's refusal of an object too large to store, or undefined when it fits. The API server passes
 * etcd's error through as a 500 Status with no reason (kubectl prints "Error from server: etcdserver:
 * request is too large"). Only for an object about to be stored: its parts are frozen on the way.
 */
export const tooLargeToStore = (object: KubeObject): ApiResponse | undefined =>
  isTooLarge(object)
    ? { code: 500, body: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "etcdserver: request is too large", code: 500 } }
    : undefined
