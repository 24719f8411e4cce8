// The objects the simulated API server holds, per resource and keyed by namespace/name, with one
// global revision counter (as etcd has) that stamps every write's resourceVersion, and a bounded log of
// changes that watches replay from.
import type { KubeObject } from "../../Api.ts"
import { freezeJson, isJsonObject, putOwn } from "./JsonValue.ts"

/** One stored change, as watches see it. */
export interface StoredChange {
  readonly revision: number
  readonly resource: string
  readonly type: "ADDED" | "MODIFIED" | "DELETED"
  readonly object: KubeObject
  /** The object before a MODIFIED change, so a selector-filtered watch can tell entering from leaving. */
  readonly previous?: KubeObject
}

/** How many changes the log keeps (at least) for watches that resume from a resourceVersion; like the real watch cache, older ones are answered 410. */
export const changeLogCapacity = 1_000

const keyOf = (namespace: string | undefined, name: string): string => `${namespace ?? ""}/${name}`

const metadataOf = (object: KubeObject): Record<string, unknown> => (isJsonObject(object.metadata) ? object.metadata : {})

/** The namespace/name key of a stored object, the order lists come in. */
export const objectKey = (object: KubeObject): string => {
  const m = metadataOf(object)
  return keyOf(typeof m["namespace"] === "string" ? m["namespace"] : undefined, String(m["name"]))
}

// Stored objects are frozen: readers share them instead of copying, and no writer can change one in
// place. The top level is copied key by key: V8 makes a frozen copy of a spread object ~190 bytes larger.
const stamped = (object: KubeObject, revision: number): KubeObject => {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(object)) putOwn(out, key, object[key])
  out["metadata"] = { ...metadataOf(object), resourceVersion: String(revision) }
  return freezeJson(out)
}

// The index of the first key above `bound` (or at it, when not strict), by binary search.
const firstAbove = (keys: ReadonlyArray<string>, bound: string, strict: boolean): number => {
  let lo = 0
  let hi = keys.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const key = keys[mid] ?? ""
    if (key < bound || (strict && key === bound)) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The stored objects, the revision counter and the change log. */
export class Store {
  private revision = 0
  private readonly byResource = new Map<string, Map<string, KubeObject>>()
  // The same objects by resource, then namespace ("" for none), then name: a read finds its object
  // without building the namespace/name key string (reads outnumber writes many times over). Stored
  // names and namespaces never hold a "/", so the two agree on every lookup.
  private readonly byName = new Map<string, Map<string, Map<string, KubeObject>>>()
  // Keys in order, per resource, kept up to date on insert and removal once built.
  private readonly sorted = new Map<string, Array<string>>()
  private log: Array<StoredChange> = []
  private readonly listeners = new Set<(change: StoredChange) => void>()
  // The listeners as they were at the last (un)subscription: each write calls those, whoever subscribes meanwhile.
  private listenerList: ReadonlyArray<(change: StoredChange) => void> = []

  /** The latest revision (the resourceVersion a list reports). */
  currentRevision(): number {
    return this.revision
  }

  /** The stored object (not a copy: it is deeply frozen). */
  get(resource: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.byName.get(resource)?.get(namespace ?? "")?.get(name)
  }

  /** Stored objects of a resource in key order, from `afterKey` on, optionally in one namespace. */
  list(resource: string, namespace?: string, afterKey?: string): ReadonlyArray<KubeObject> {
    const objects = this.byResource.get(resource)
    if (objects === undefined) return []
    const keys = this.sortedKeys(resource, objects)
    const prefix = namespace === undefined ? "" : `${namespace}/`
    const from = afterKey !== undefined && afterKey >= prefix ? afterKey : prefix
    const out: Array<KubeObject> = []
    for (let i = firstAbove(keys, from, from === afterKey); i < keys.length; i++) {
      const key = keys[i] ?? ""
      if (!key.startsWith(prefix)) break
      const o = objects.get(key)
      if (o !== undefined) out.push(o)
    }
    return out
  }

  /**
   * Up to `limit` selected objects in key order after `afterKey`, whether more follow, and (when
   * `countRest`) how many: the scan stops early when nobody needs the count.
   */
  page(
    resource: string,
    options: {
      readonly namespace?: string | undefined
      readonly afterKey?: string | undefined
      readonly limit: number
      /** Absent: every object in the namespace is selected (and the rest is counted from the index). */
      readonly select?: ((object: KubeObject) => boolean) | undefined
      readonly countRest: boolean
    }
  ): { readonly items: ReadonlyArray<KubeObject>; readonly more: boolean; readonly rest: number } {
    const objects = this.byResource.get(resource)
    if (objects === undefined) return { items: [], more: false, rest: 0 }
    const keys = this.sortedKeys(resource, objects)
    const prefix = options.namespace === undefined ? "" : `${options.namespace}/`
    const from = options.afterKey !== undefined && options.afterKey >= prefix ? options.afterKey : prefix
    const items: Array<KubeObject> = []
    let rest = 0
    const start = firstAbove(keys, from, from === options.afterKey)
    if (options.select === undefined) {
      // "0" is the character after "/", so this is the first key past the namespace's range.
      const end = prefix === "" ? keys.length : firstAbove(keys, `${prefix.slice(0, -1)}0`, false)
      const stop = Math.min(end, start + options.limit)
      for (let i = start; i < stop; i++) {
        const o = objects.get(keys[i] ?? "")
        if (o !== undefined) items.push(o)
      }
      return { items, more: end > stop, rest: end - stop }
    }
    for (let i = start; i < keys.length; i++) {
      const key = keys[i] ?? ""
      if (!key.startsWith(prefix)) break
      const o = objects.get(key)
      if (o === undefined || !options.select(o)) continue
      if (items.length < options.limit) items.push(o)
      else {
        rest++
        if (!options.countRest) break
      }
    }
    return { items, more: rest > 0, rest }
  }

  /** How many objects of a resource are stored. */
  count(resource: string): number {
    return this.byResource.get(resource)?.size ?? 0
  }

  /** Stores an object under a new revision, returning it as stored. */
  write(resource: string, object: KubeObject): KubeObject {
    const objects = this.byResource.get(resource) ?? new Map<string, KubeObject>()
    this.byResource.set(resource, objects)
    const key = objectKey(object)
    const previous = objects.get(key)
    const revision = ++this.revision
    const stored = stamped(object, revision)
    objects.set(key, stored)
    this.index(resource, stored)
    if (previous === undefined) {
      const keys = this.sorted.get(resource)
      keys?.splice(firstAbove(keys, key, false), 0, key)
    }
    this.record(previous === undefined ? { revision, resource, type: "ADDED", object: stored } : { revision, resource, type: "MODIFIED", object: stored, previous })
    return stored
  }

  /** Removes an object under a new revision, returning its last state (`final` when given). */
  remove(resource: string, namespace: string | undefined, name: string, final?: KubeObject): KubeObject | undefined {
    const objects = this.byResource.get(resource)
    const key = keyOf(namespace, name)
    const previous = objects?.get(key)
    if (objects === undefined || previous === undefined) return undefined
    objects.delete(key)
    this.byName.get(resource)?.get(namespace ?? "")?.delete(name)
    const keys = this.sorted.get(resource)
    const at = keys === undefined ? -1 : firstAbove(keys, key, false)
    if (keys !== undefined && keys[at] === key) keys.splice(at, 1)
    const revision = ++this.revision
    const last = stamped(final ?? previous, revision)
    this.record({ revision, resource, type: "DELETED", object: last })
    return last
  }

  /**
   * Puts back objects a journal kept, each with its own resourceVersion, and moves the revision counter
   * to `revision` so later writes continue past it. Listeners hear each as ADDED (controllers and the
   * collector rebuild their indexes); the change log does not, so a watch from before cannot resume.
   */
  restore(revision: number, objects: Iterable<{ readonly resource: string; readonly object: KubeObject }>): void {
    this.revision = Math.max(this.revision, revision)
    for (const { resource, object } of objects) {
      const objects = this.byResource.get(resource) ?? new Map<string, KubeObject>()
      this.byResource.set(resource, objects)
      const stored = freezeJson(object)
      objects.set(objectKey(stored), stored)
      this.index(resource, stored)
      this.sorted.delete(resource)
      const change: StoredChange = { revision: Number(metadataOf(stored)["resourceVersion"] ?? revision), resource, type: "ADDED", object: stored }
      for (const listener of this.listenerList) listener(change)
    }
  }

  /** The logged changes after `revision`, or undefined when the log no longer reaches back that far. */
  changesSince(revision: number): ReadonlyArray<StoredChange> | undefined {
    const first = this.log[0]
    if (first !== undefined && revision < first.revision - 1) return undefined
    if (first === undefined && revision < this.revision) return undefined
    return this.log.filter((c) => c.revision > revision)
  }

  /** Calls `listener` with every change from now on, until the returned function is called. */
  subscribe(listener: (change: StoredChange) => void): () => void {
    this.listeners.add(listener)
    this.listenerList = [...this.listeners]
    return () => {
      const removed = this.listeners.delete(listener)
      this.listenerList = [...this.listeners]
      return removed
    }
  }

  /** The resources the store has held objects of, in the order it first did. */
  resources(): Iterable<string> {
    return this.byResource.keys()
  }

  /** Every stored object of a resource, in no particular (but a repeatable) order. */
  all(resource: string): Iterable<KubeObject> {
    return this.byResource.get(resource)?.values() ?? []
  }

  // Files a stored object under its resource, namespace and name for get.
  private index(resource: string, object: KubeObject): void {
    const m = metadataOf(object)
    const namespace = typeof m["namespace"] === "string" ? m["namespace"] : ""
    let namespaces = this.byName.get(resource)
    if (namespaces === undefined) {
      namespaces = new Map()
      this.byName.set(resource, namespaces)
    }
    let names = namespaces.get(namespace)
    if (names === undefined) {
      names = new Map()
      namespaces.set(namespace, names)
    }
    names.set(String(m["name"]), object)
  }

  private sortedKeys(resource: string, objects: Map<string, KubeObject>): ReadonlyArray<string> {
    let keys = this.sorted.get(resource)
    if (keys === undefined) {
      keys = [...objects.keys()].sort()
      this.sorted.set(resource, keys)
    }
    return keys
  }

  private record(change: StoredChange): void {
    this.log.push(change)
    if (this.log.length > 2 * changeLogCapacity) this.log = this.log.slice(-changeLogCapacity)
    for (const listener of this.listenerList) listener(change)
  }
}
