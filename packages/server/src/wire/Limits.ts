// What one request may write and one answer may hold. Every stored value is bounded by what a write may carry,
// and every list answer by its page's byte budget, so no answer grows past what can be serialized and sent.
import { isStorableText } from "@dispatch/jobs"
import { defaultPageBytes } from "./Paging.ts"

/** The service's size limits, in bytes, and how many snapshots a resource keeps. */
export interface AnswerLimits {
  /** The longest string (value or object key) a request body may carry, in UTF-8 bytes. */
  readonly fieldBytes: number
  /** The JSON bytes of one list page's items; a page stops before the item that would pass it. */
  readonly pageBytes: number
  /** The JSON bytes one snapshot of a resource may take: an answer carries one snapshot, so this keeps every
   * answer of a resource within a page. */
  readonly snapshotBytes: number
  /** The JSON bytes the snapshots one resource keeps may take together. */
  readonly resourceBytes: number
  /** How many of a resource's latest snapshots are kept; older ones are deleted unless a job names them. */
  readonly snapshotsKept: number
  /** The most snapshots one artifact has: its answer lists every one's id. */
  readonly artifactSnapshots: number
  /** The most resources one resource names, added over many requests: an experiment's entrypoints, a job's
   * artifacts. Its answer lists every one. */
  readonly references: number
}

/** The limits a service runs with unless told otherwise. */
export const defaultLimits: AnswerLimits = {
  fieldBytes: 64 * 1024,
  pageBytes: defaultPageBytes,
  snapshotBytes: 2 * 1024 * 1024,
  resourceBytes: 32 * 1024 * 1024,
  snapshotsKept: 10,
  artifactSnapshots: 10_000,
  references: 10_000
}

/** A string of a request body that is longer than the limit: where it is, and its size. */
export interface OversizedField {
  readonly path: string
  readonly bytes: number
}

const at = (path: string, key: string | number) => (typeof key === "number" ? `${path}[${key}]` : path === "" ? key : `${path}.${key}`)

/** Every string of a parsed JSON body (values and keys) longer than `limit` bytes, with its path. */
export const oversizedFields = (body: unknown, limit: number): ReadonlyArray<OversizedField> => {
  const found: Array<OversizedField> = []
  const walk = (value: unknown, path: string): void => {
    if (typeof value === "string") {
      // A UTF-16 unit is at most 3 UTF-8 bytes: only a string of more than limit/3 units can pass the limit.
      if (value.length * 3 > limit) {
        const bytes = Buffer.byteLength(value)
        if (bytes > limit) found.push({ path: path === "" ? "(the body)" : path, bytes })
      }
      return
    }
    if (Array.isArray(value)) return value.forEach((item, i) => walk(item, at(path, i)))
    if (typeof value === "object" && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        if (Buffer.byteLength(key) > limit) found.push({ path: `${path === "" ? "" : `${path}.`}(a key of ${Buffer.byteLength(key)} bytes)`, bytes: Buffer.byteLength(key) })
        else walk(inner, at(path, key))
      }
    }
  }
  walk(body, "")
  return found
}

/** The most items (array entries or object keys) one array or object of a request body may hold: Dioptra's bodies
 * hold tens; more would only make the service loop over what it cannot store or answer. */
export const maxBodyItems = 10_000

/** An array or object of a request body with more items than the limit: where it is, and how many it holds. */
export interface CrowdedField {
  readonly path: string
  readonly items: number
}

/** Every array and object of a parsed JSON body holding more than `limit` items, with its path. */
export const crowdedFields = (body: unknown, limit: number): ReadonlyArray<CrowdedField> => {
  const found: Array<CrowdedField> = []
  const walk = (value: unknown, path: string): void => {
    if (typeof value !== "object" || value === null) return
    const entries: ReadonlyArray<readonly [string | number, unknown]> = Array.isArray(value) ? value.map((item, i) => [i, item] as const) : Object.entries(value)
    if (entries.length > limit) {
      found.push({ path: path === "" ? "(the body)" : path, items: entries.length })
      return
    }
    for (const [key, inner] of entries) walk(inner, at(path, key))
  }
  walk(body, "")
  return found
}


/** True when a parsed JSON body holds anything `oversizedFields`, `crowdedFields` or `malformedTexts` would name: a
 * string or key over `fieldBytes`, an array or object of more than `items`, a string or key no store can hold. One
 * walk that builds no path, so a good body (nearly every one) costs one look at each value; only a flawed one is
 * walked again, by those three, to name every problem. Its own stack, so any depth is walked without recursion. */
export const bodyFlawed = (body: unknown, fieldBytes: number, items: number): boolean => {
  // A UTF-16 unit is at most 3 UTF-8 bytes: only a string of more than fieldBytes/3 units can pass the limit.
  const flawedString = (text: string) => (text.length * 3 > fieldBytes && Buffer.byteLength(text) > fieldBytes) || !isStorableText(text)
  const pending: Array<unknown> = [body]
  while (pending.length > 0) {
    const value = pending.pop()
    if (typeof value === "string") {
      if (flawedString(value)) return true
    } else if (Array.isArray(value)) {
      if (value.length > items) return true
      for (let i = 0; i < value.length; i++) pending.push(value[i])
    } else if (typeof value === "object" && value !== null) {
      const keys = Object.keys(value)
      if (keys.length > items) return true
      for (const key of keys) {
        if (flawedString(key)) return true
        pending.push((value as Record<string, unknown>)[key])
      }
    }
  }
  return false
}
