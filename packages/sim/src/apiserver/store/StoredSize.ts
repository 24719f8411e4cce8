// etcd's request limit, which is what bounds an object's size on a real cluster: the API server takes
// bodies up to 3 MiB, then etcd refuses to store an object whose encoding is over 1.5 MiB. Custom
// resources are stored as JSON, so the measure is the UTF-8 length of the object's JSON.
import type { ApiResponse, KubeObject } from "../../Api.ts"

/** etcd's default --max-request-bytes: 1.5 MiB. */
export const maxStoredObjectBytes = 1_572_864

const encoder = new TextEncoder()

/** The UTF-8 length of an object's JSON. */
export const storedSize = (object: KubeObject): number => encoder.encode(JSON.stringify(object)).length

const isTooLarge = (object: KubeObject): boolean => {
  const json = JSON.stringify(object)
  // A UTF-16 unit takes one to three UTF-8 bytes: only a string near the limit needs encoding to tell.
  if (json.length > maxStoredObjectBytes) return true
  if (json.length * 3 <= maxStoredObjectBytes) return false
  return encoder.encode(json).length > maxStoredObjectBytes
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
