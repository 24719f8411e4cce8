// The keys of the objects a controller must look at again, filled by the store's change feed as an
// informer's event handlers fill a work queue: a pass costs what changed, not what is stored.
import type { Controller, KubeObject, SystemClient } from "../../Api.ts"
import { asArray, asString, at, isDeleting, nameOf, namespaceOf } from "./KubeFields.ts"

/** `namespace/name` of an object. */
export const keyOf = (object: KubeObject): string => `${namespaceOf(object) ?? ""}/${nameOf(object)}`

/** Splits a `namespace/name` key. */
export const splitKey = (key: string): { readonly namespace: string; readonly name: string } => {
  const slash = key.indexOf("/")
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) }
}

/** The key of the object's controlling owner of that kind, in its namespace. */
export const controllerKeyOf = (object: KubeObject, kind: string): string | undefined => {
  const owner = asArray(at(object, "metadata", "ownerReferences")).find((ref) => at(ref, "controller") === true && at(ref, "kind") === kind)
  const name = asString(at(owner, "name"))
  return name === undefined ? undefined : `${namespaceOf(object) ?? ""}/${name}`
}

/**
 * A set of keys to reconcile, drained by each pass, and keys due at a moment of the clock (an object
 * whose status changes by time alone, as a delayed requeue would bring it back).
 */
export class ChangeQueue {
  private keys = new Set<string>()
  private readonly timers = new Map<string, number>()
  // The earliest timer, kept so that asking costs nothing while no timer is added or fires.
  private nextDue = Number.POSITIVE_INFINITY

  /** Marks a key for the next pass. */
  add(key: string | undefined): void {
    if (key !== undefined) this.keys.add(key)
  }

  /** Marks a key for the first pass at or after `dueAt` (an earlier mark for the key is replaced). */
  addAt(key: string, dueAt: number): void {
    if (!Number.isFinite(dueAt)) return
    const earlier = this.timers.get(key)
    this.timers.set(key, dueAt)
    if (dueAt < this.nextDue) this.nextDue = dueAt
    else if (earlier === this.nextDue) this.nextDue = this.earliest()
  }

  /** The clock time of the earliest key due later (Infinity: none). */
  dueAt(): number {
    return this.keys.size > 0 ? Number.NEGATIVE_INFINITY : this.nextDue
  }

  /** Takes every waiting key and every key due by `now` (writes during the pass queue keys for the next one). */
  drain(now: number = Number.NEGATIVE_INFINITY): ReadonlyArray<string> {
    if (now >= this.nextDue) {
      for (const [key, due] of this.timers) {
        if (due > now) continue
        this.timers.delete(key)
        this.keys.add(key)
      }
      this.nextDue = this.earliest()
    }
    const out = [...this.keys]
    this.keys = new Set()
    return out
  }

  private earliest(): number {
    let next = Number.POSITIVE_INFINITY
    for (const due of this.timers.values()) next = Math.min(next, due)
    return next
  }
}

/** An index from a parent's key to the names of its children, kept from the change feed. */
export class ChildIndex {
  private readonly children = new Map<string, Set<string>>()

  /** Adds or removes one child under its parent's key. */
  track(parent: string | undefined, child: string, present: boolean): void {
    if (parent === undefined) return
    const set = this.children.get(parent) ?? new Set<string>()
    if (present) set.add(child)
    else set.delete(child)
    if (set.size === 0) this.children.delete(parent)
    else this.children.set(parent, set)
  }

  /** The children's names under a parent key. */
  of(parent: string): ReadonlyArray<string> {
    return [...(this.children.get(parent) ?? [])]
  }
}

/**
 * A controller that, at each pass, looks at the objects of `resource` whose keys `queue` holds (those
 * still there and not being deleted), and is due only while the queue holds any or one of its timers is due.
 */
export const queuedController = (
  name: string,
  resource: string,
  queue: ChangeQueue,
  reconcileOne: (system: SystemClient, object: KubeObject, key: string) => void
): Controller => ({
  name,
  dueAt: () => queue.dueAt(),
  reconcile(system) {
    for (const key of queue.drain(system.now())) {
      const { namespace, name: objectName } = splitKey(key)
      const object = system.get(resource, namespace, objectName)
      if (object !== undefined && !isDeleting(object)) reconcileOne(system, object, key)
    }
  }
})
