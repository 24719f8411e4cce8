// The garbage collector, run at every clock step over the objects its queue marked, until nothing more
// changes: dependents whose owners are all gone (not found, or a different uid) are deleted, dangling
// references beside live owners are dropped, Orphan deletes release their dependents, and Foreground
// deletes delete their dependents and finish once no dependent blocking the owner remains.
import type { KubeObject } from "../../Api.ts"
import type { Kind } from "../../kinds/Kind.ts"
import { deleteObject, foregroundFinalizer, orphanFinalizer } from "../verbs/Delete.ts"
import { type GarbageQueue, type ObjectAddress, ownerReferencesOf } from "./GarbageQueue.ts"
import { finalizersOf, identityOf, isDeleting, metadataOf, type ServerContext } from "../store/ServerContext.ts"
import { commitUpdate } from "../verbs/Update.ts"

/** A stored object with its resource. */
interface Entry {
  readonly resource: Kind
  readonly object: KubeObject
}

/** What an owner reference points at: a live owner, nothing (dangling), or a kind the server does not serve. */
export type OwnerState = "present" | "absent" | "unknown"

/** Resolves one owner reference of a dependent in `namespace`. */
export const ownerState = (context: ServerContext, ref: Record<string, unknown>, namespace: string | undefined): OwnerState => {
  const resource = context.kinds.byKind(String(ref["apiVersion"] ?? ""), String(ref["kind"] ?? ""))
  if (resource === undefined || (resource.namespaced && namespace === undefined)) return "unknown"
  const owner = context.store.get(resource.plural, resource.namespaced ? namespace : undefined, String(ref["name"] ?? ""))
  return owner !== undefined && metadataOf(owner)["uid"] === ref["uid"] ? "present" : "absent"
}

const updateMetadata = (context: ServerContext, entry: Entry, metadata: Record<string, unknown>): void => {
  const current = context.store.get(entry.resource.plural, identityOf(entry.object).namespace, identityOf(entry.object).name)
  if (current === undefined) return
  commitUpdate(context, entry.resource, current, { ...current, metadata: { ...metadataOf(current), ...metadata } }, {
    version: entry.resource.versions[0] ?? "",
    dryRun: false,
    requireResourceVersion: false
  })
}

const remove = (context: ServerContext, entry: Entry, policy: "Background" | "Foreground"): void => {
  const { namespace, name } = identityOf(entry.object)
  deleteObject(context, entry.resource, namespace, name, { version: entry.resource.versions[0] ?? "", dryRun: false, propagationPolicy: policy })
}

// The stored object at an address, with its resource.
const entryAt = (context: ServerContext, address: ObjectAddress): Entry | undefined => {
  const resource = context.kinds.byResource(address.resource)
  const object = resource === undefined ? undefined : context.store.get(address.resource, address.namespace, address.name)
  return resource === undefined || object === undefined ? undefined : { resource, object }
}

const withoutFinalizer = (object: KubeObject, finalizer: string): Record<string, unknown> => ({
  finalizers: finalizersOf(object).filter((f) => f !== finalizer)
})

// Brings one object in line; only objects with owners or being deleted can need the collector.
const collect = (context: ServerContext, queue: GarbageQueue, entry: Entry): void => {
  const m = metadataOf(entry.object)
  if (m["ownerReferences"] === undefined && m["deletionTimestamp"] === undefined) return
  const { uid, namespace } = identityOf(entry.object)
  // Only a deletion that waits on its dependents looks them up: most objects the queue marks are not being deleted.
  const dependents = (): ReadonlyArray<Entry> => queue.dependentsOf(uid ?? "").flatMap((address) => entryAt(context, address) ?? [])
  const finalizers = finalizersOf(entry.object)
  if (isDeleting(entry.object) && finalizers.includes(orphanFinalizer)) {
    for (const dep of dependents()) {
      updateMetadata(context, dep, { ownerReferences: ownerReferencesOf(dep.object).filter((r) => r["uid"] !== uid) })
    }
    updateMetadata(context, entry, withoutFinalizer(entry.object, orphanFinalizer))
    return
  }
  if (isDeleting(entry.object) && finalizers.includes(foregroundFinalizer)) {
    const deps = dependents()
    for (const dep of deps) if (!isDeleting(dep.object)) remove(context, dep, "Foreground")
    const blocking = deps.some((dep) => {
      const { namespace: ns, name } = identityOf(dep.object)
      const still = context.store.get(dep.resource.plural, ns, name)
      return still !== undefined && ownerReferencesOf(still).some((r) => r["uid"] === uid && r["blockOwnerDeletion"] === true)
    })
    if (!blocking) updateMetadata(context, entry, withoutFinalizer(entry.object, foregroundFinalizer))
    return
  }
  const refs = ownerReferencesOf(entry.object)
  if (refs.length === 0) return
  const states = refs.map((ref) => ownerState(context, ref, namespace))
  if (states.every((s) => s === "absent")) {
    if (!isDeleting(entry.object)) remove(context, entry, "Background")
  } else if (states.includes("absent")) {
    updateMetadata(context, entry, { ownerReferences: refs.filter((_, i) => states[i] !== "absent") })
  }
}

/** How many rounds one collection may take (each round resolves at least one level of ownership). */
export const maxPasses = 64

/**
 * Collects garbage until nothing more is pending (at most `maxPasses` rounds; what is left waits for
 * the next step). Each round visits the objects the queue marked, whose writes mark the next round's.
 */
export const collectGarbage = (context: ServerContext, queue: GarbageQueue): void => {
  for (let i = 0; i < maxPasses && queue.hasPending(); i++) {
    for (const address of queue.takePending()) {
      const entry = entryAt(context, address)
      if (entry !== undefined) collect(context, queue, entry)
    }
  }
}
