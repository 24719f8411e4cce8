// The garbage collector, run at every clock step until nothing more changes: dependents whose owners
// are all gone (not found, or a different uid) are deleted, dangling references beside live owners
// are dropped, Orphan deletes release their dependents, and Foreground deletes delete their
// dependents and finish once no dependent blocking the owner remains.
import { type KubeObject, type Resource, Resources } from "./Api.ts"
import { deleteObject, foregroundFinalizer, orphanFinalizer } from "./Delete.ts"
import { isJsonObject } from "./JsonValue.ts"
import { resourceByKind } from "./ResourceTable.ts"
import { finalizersOf, identityOf, isDeleting, metadataOf, type ServerContext } from "./ServerContext.ts"
import { commitUpdate } from "./Update.ts"

/** A stored object with its resource. */
interface Entry {
  readonly resource: Resource
  readonly object: KubeObject
}

/** What an owner reference points at: a live owner, nothing (dangling), or a kind the server does not serve. */
export type OwnerState = "present" | "absent" | "unknown"

const ownerReferences = (object: KubeObject): ReadonlyArray<Record<string, unknown>> => {
  const refs = metadataOf(object)["ownerReferences"]
  return Array.isArray(refs) ? refs.filter(isJsonObject) : []
}

/** Resolves one owner reference of a dependent in `namespace`. */
export const ownerState = (context: ServerContext, ref: Record<string, unknown>, namespace: string | undefined): OwnerState => {
  const resource = resourceByKind(String(ref["apiVersion"] ?? ""), String(ref["kind"] ?? ""))
  if (resource === undefined || (resource.namespaced && namespace === undefined)) return "unknown"
  const owner = context.store.get(resource.plural, resource.namespaced ? namespace : undefined, String(ref["name"] ?? ""))
  return owner !== undefined && metadataOf(owner)["uid"] === ref["uid"] ? "present" : "absent"
}

// Only objects with owners or being deleted can need the collector.
const candidates = (context: ServerContext): ReadonlyArray<Entry> => {
  const out: Array<Entry> = []
  for (const resource of Resources) {
    for (const object of context.store.all(resource.plural)) {
      const m = object.metadata
      if (m !== undefined && (m["ownerReferences"] !== undefined || m["deletionTimestamp"] !== undefined)) out.push({ resource, object })
    }
  }
  return out
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

const dependentsByOwner = (entries: ReadonlyArray<Entry>): Map<string, Array<Entry>> => {
  const index = new Map<string, Array<Entry>>()
  for (const entry of entries) {
    for (const ref of ownerReferences(entry.object)) {
      const uid = String(ref["uid"] ?? "")
      index.set(uid, [...(index.get(uid) ?? []), entry])
    }
  }
  return index
}

const withoutFinalizer = (object: KubeObject, finalizer: string): Record<string, unknown> => ({
  finalizers: finalizersOf(object).filter((f) => f !== finalizer)
})

// One pass over the store; true when it changed something.
const pass = (context: ServerContext): boolean => {
  const entries = candidates(context)
  const dependents = dependentsByOwner(entries)
  const before = context.store.currentRevision()
  for (const entry of entries) {
    const { uid, namespace } = identityOf(entry.object)
    const deps = dependents.get(uid ?? "") ?? []
    const finalizers = finalizersOf(entry.object)
    if (isDeleting(entry.object) && finalizers.includes(orphanFinalizer)) {
      for (const dep of deps) {
        updateMetadata(context, dep, { ownerReferences: ownerReferences(dep.object).filter((r) => r["uid"] !== uid) })
      }
      updateMetadata(context, entry, withoutFinalizer(entry.object, orphanFinalizer))
      continue
    }
    if (isDeleting(entry.object) && finalizers.includes(foregroundFinalizer)) {
      for (const dep of deps) if (!isDeleting(dep.object)) remove(context, dep, "Foreground")
      const blocking = deps.some((dep) => {
        const { namespace: ns, name } = identityOf(dep.object)
        const still = context.store.get(dep.resource.plural, ns, name)
        return still !== undefined && ownerReferences(still).some((r) => r["uid"] === uid && r["blockOwnerDeletion"] === true)
      })
      if (!blocking) updateMetadata(context, entry, withoutFinalizer(entry.object, foregroundFinalizer))
      continue
    }
    const refs = ownerReferences(entry.object)
    if (refs.length === 0) continue
    const states = refs.map((ref) => ownerState(context, ref, namespace))
    if (states.every((s) => s === "absent")) {
      if (!isDeleting(entry.object)) remove(context, entry, "Background")
    } else if (states.includes("absent")) {
      updateMetadata(context, entry, { ownerReferences: refs.filter((_, i) => states[i] !== "absent") })
    }
  }
  return context.store.currentRevision() !== before
}

/** How many passes one collection may take (each pass resolves at least one level of ownership). */
export const maxPasses = 64

/** Collects garbage until nothing changes (at most `maxPasses` passes). */
export const collectGarbage = (context: ServerContext): void => {
  for (let i = 0; i < maxPasses && pass(context); i++) {
    // each pass may expose the next level of dependents
  }
}
