// What the API server's verbs share: the store, the clock, the seeded randomness for uids and names,
// the registered admission webhooks, and how objects are presented at a requested version.
import type { Admission, KubeObject, Resource, SystemClient } from "../../Api.ts"
import { isJsonObject, jsonCloneSharing } from "./JsonValue.ts"
import type { SeededRandom } from "../../Random.ts"
import { apiVersionFor } from "../ResourceNames.ts"
import type { Store } from "./Store.ts"
import type { KindRegistry } from "../../kinds/KindRegistry.ts"

/** The parts of the simulator every verb needs. */
export interface ServerContext {
  readonly store: Store
  /** The kinds this server serves. */
  readonly kinds: KindRegistry
  readonly now: () => number
  readonly random: SeededRandom
  readonly admissions: () => ReadonlyArray<Admission>
  readonly system: () => SystemClient
}

/** The metadata of an object (an empty record when it has none). */
export const metadataOf = (object: unknown): Record<string, unknown> =>
  isJsonObject(object) && isJsonObject(object["metadata"]) ? object["metadata"] : {}

/** The object's name, namespace and uid as strings (or undefined). */
export const identityOf = (
  object: unknown
): { readonly name: string; readonly namespace: string | undefined; readonly uid: string | undefined } => {
  const m = metadataOf(object)
  return {
    name: typeof m["name"] === "string" ? m["name"] : "",
    namespace: typeof m["namespace"] === "string" ? m["namespace"] : undefined,
    uid: typeof m["uid"] === "string" ? m["uid"] : undefined
  }
}

/** The object's finalizers. */
export const finalizersOf = (object: unknown): ReadonlyArray<string> => {
  const f = metadataOf(object)["finalizers"]
  return Array.isArray(f) ? f.filter((x): x is string => typeof x === "string") : []
}

/** True when the object has been marked for deletion. */
export const isDeleting = (object: unknown): boolean => typeof metadataOf(object)["deletionTimestamp"] === "string"

// The clock stands still between steps while many writes are stamped: the last answer is kept.
// Module state that is a pure memo cache of constant input (a whole second's text): every simulator may share it.
let lastStamp: { readonly second: number; readonly text: string } = { second: Number.NaN, text: "" }

/** An RFC 3339 timestamp with second precision, as metadata carries them. */
export const timestamp = (ms: number): string => {
  const second = Math.floor(ms / 1000)
  if (second !== lastStamp.second) lastStamp = { second, text: new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, "Z") }
  return lastStamp.text
}

/**
 * A stored object as served at `version`: a new top level over the stored object's own (frozen) parts.
 * The verbs answer with these; a face copies the answer (handedOut) before it reaches a caller that
 * may edit it, and the HTTP face, which only serialises it, does not copy it at all.
 */
export const present = (resource: Resource, object: KubeObject, version: string): KubeObject => ({ ...object, apiVersion: apiVersionFor(resource, version) })

/**
 * A copy of an answer's body for a caller that may edit it. Its managedFields stay the stored ones,
 * shared and frozen: they are often half an object, no caller edits them in place, and copying them on
 * every answer would double what an answer costs.
 */
export const handedOut = <A>(body: A): A => jsonCloneSharing(body, "managedFields")

/** A copy of the object with its metadata replaced. */
export const withMetadata = (object: KubeObject, metadata: Record<string, unknown>): KubeObject => ({ ...object, metadata })
