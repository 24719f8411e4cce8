// What the garbage collector must look at, kept up to date from the store's changes so that a clock
// step costs what changed, not what is stored: an index from each owner uid to the objects whose owner
// references name it, and the objects whose collection may have changed since the collector last ran
// (those written, the owners they name before and after, and the dependents of an owner written or
// removed). An object none of whose inputs changed would get the same answer as last time: nothing.
import type { KubeObject } from "../../Api.ts"
import { isDeeplyFrozen, isJsonObject } from "../store/JsonValue.ts"
import type { KindRegistry } from "../../kinds/KindRegistry.ts"
import { metadataOf } from "../store/ServerContext.ts"
import type { Store, StoredChange } from "../store/Store.ts"

/** Where a stored object lives. */
export interface ObjectAddress {
  readonly resource: string
  readonly namespace: string | undefined
  readonly name: string
}

/** The owner references of an object (those that are objects). */
export const ownerReferencesOf = (object: KubeObject): ReadonlyArray<Record<string, unknown>> => referencesIn(metadataOf(object)["ownerReferences"])

// The list itself when every item is an object (always, for a stored object that passed validation):
// every write the queue observes asks, and a copy would be made only to be thrown away.
const referencesIn = (refs: unknown): ReadonlyArray<Record<string, unknown>> => {
  if (!Array.isArray(refs)) return []
  return refs.every(isJsonObject) ? (refs as ReadonlyArray<Record<string, unknown>>) : refs.filter(isJsonObject)
}

const keyOf = (address: ObjectAddress): string => `${address.resource}|${address.namespace ?? ""}/${address.name}`

// The owner a reference names, if the server serves its kind (a namespaced owner is sought in the
// dependent's namespace, as the collector resolves it).
const ownerAddress = (kinds: KindRegistry, ref: Record<string, unknown>, namespace: string | undefined): ObjectAddress | undefined => {
  const resource = kinds.byKind(String(ref["apiVersion"] ?? ""), String(ref["kind"] ?? ""))
  if (resource === undefined || (resource.namespaced && namespace === undefined)) return undefined
  return { resource: resource.plural, namespace: resource.namespaced ? namespace : undefined, name: String(ref["name"] ?? "") }
}

type ResolvedOwner = { readonly address: ObjectAddress; readonly key: string }

/** The owner index and the collector's pending objects over one store. */
export class GarbageQueue {
  // owner uid -> dependent key -> dependent address
  private readonly dependents = new Map<string, Map<string, ObjectAddress>>()
  // dependent key -> the owner uids it is indexed under
  private readonly indexedUids = new Map<string, ReadonlyArray<string>>()
  private pending = new Map<string, ObjectAddress>()
  // A reference's owner and its key, kept per stored (frozen, so unchanging) reference and the namespace
  // it was resolved in: every write of a dependent names the same reference objects again. Per queue,
  // since whether an owner's kind is served is this server's to say.
  private readonly resolvedOwners = new WeakMap<object, { readonly namespace: string | undefined; readonly owner: ResolvedOwner | undefined }>()

  constructor(
    store: Store,
    private readonly kinds: KindRegistry
  ) {
    store.subscribe((change) => this.observe(change))
  }

  private ownerOf(ref: Record<string, unknown>, namespace: string | undefined): ResolvedOwner | undefined {
    const frozen = isDeeplyFrozen(ref)
    const known = frozen ? this.resolvedOwners.get(ref) : undefined
    if (known !== undefined && known.namespace === namespace) return known.owner
    const address = ownerAddress(this.kinds, ref, namespace)
    const owner = address === undefined ? undefined : { address, key: keyOf(address) }
    if (frozen) this.resolvedOwners.set(ref, { namespace, owner })
    return owner
  }

  /** The addresses of the stored objects whose owner references name `uid`. */
  dependentsOf(uid: string): ReadonlyArray<ObjectAddress> {
    return [...(this.dependents.get(uid)?.values() ?? [])]
  }

  /** Every owner uid with at least one dependent. */
  owners(): ReadonlyArray<string> {
    return [...this.dependents.keys()]
  }

  /** Whether any object waits for the collector. */
  hasPending(): boolean {
    return this.pending.size > 0
  }

  /** The objects waiting for the collector, in the order they were marked; the queue is emptied. */
  takePending(): ReadonlyArray<ObjectAddress> {
    const taken = [...this.pending.values()]
    this.pending = new Map()
    return taken
  }

  private observe(change: StoredChange): void {
    const m = metadataOf(change.object)
    const namespace = typeof m["namespace"] === "string" ? m["namespace"] : undefined
    const address: ObjectAddress = { resource: change.resource, namespace, name: typeof m["name"] === "string" ? m["name"] : "" }
    const key = keyOf(address)
    const list = m["ownerReferences"]
    const refs = referencesIn(list)
    // A write that kept the stored references (the same frozen list: a status update) leaves the index as it was.
    const previousList = change.previous === undefined ? undefined : metadataOf(change.previous)["ownerReferences"]
    const keptRefs = change.type === "MODIFIED" && previousList !== undefined && previousList === list
    if (!keptRefs) {
      this.unindex(key)
      if (change.type !== "DELETED" && refs.length > 0) this.index(key, address, refs)
    }
    if (change.type !== "DELETED" && (list !== undefined || m["deletionTimestamp"] !== undefined)) this.pending.set(key, address)
    const uid = m["uid"]
    // The index keeps each dependent's key beside its address: marking one builds no key again.
    const dependents = typeof uid === "string" ? this.dependents.get(uid) : undefined
    if (dependents !== undefined) for (const [dependentKey, dependent] of dependents) this.pending.set(dependentKey, dependent)
    const named = keptRefs || change.previous === undefined ? refs : [...refs, ...ownerReferencesOf(change.previous)]
    for (const ref of named) {
      const owner = this.ownerOf(ref, namespace)
      if (owner !== undefined) this.pending.set(owner.key, owner.address)
    }
  }

  private index(key: string, address: ObjectAddress, refs: ReadonlyArray<Record<string, unknown>>): void {
    // Most objects name one owner, whose uid needs no set to be told apart from the others'.
    const uids = refs.length === 1 ? [String(refs[0]?.["uid"] ?? "")] : [...new Set(refs.map((ref) => String(ref["uid"] ?? "")))]
    for (const uid of uids) {
      const byKey = this.dependents.get(uid) ?? new Map<string, ObjectAddress>()
      byKey.set(key, address)
      this.dependents.set(uid, byKey)
    }
    this.indexedUids.set(key, uids)
  }

  private unindex(key: string): void {
    for (const uid of this.indexedUids.get(key) ?? []) {
      const byKey = this.dependents.get(uid)
      byKey?.delete(key)
      if (byKey?.size === 0) this.dependents.delete(uid)
    }
    this.indexedUids.delete(key)
  }
}
