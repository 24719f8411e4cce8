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

/** A set of keys to reconcile, drained by each pass. */
export class ChangeQueue {
  private keys = new Set<string>()

  /** Marks a key for the next pass. */
  add(key: string | undefined): void {
    if (key !== undefined) this.keys.add(key)
  }

  /** Whether anything is waiting. */
  isEmpty(): boolean {
    return this.keys.size === 0
  }

  /** Takes every waiting key (writes during the pass queue keys for the next one). */
  drain(): ReadonlyArray<string> {
    const out = [...this.keys]
    this.keys = new Set()
    return out
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
 * still there and not being deleted), and is due only while the queue holds any.
 */
export const queuedController = (
  name: string,
  resource: string,
  queue: ChangeQueue,
  reconcileOne: (system: SystemClient, object: KubeObject, key: string) => void
): Controller => ({
  name,
  dueAt: () => (queue.isEmpty() ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY),
  reconcile(system) {
    for (const key of queue.drain()) {
      const { namespace, name: objectName } = splitKey(key)
      const object = system.get(resource, namespace, objectName)
      if (object !== undefined && !isDeleting(object)) reconcileOne(system, object, key)
    }
  }
})
