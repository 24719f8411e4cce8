// metadata.managedFields as the API server keeps it: one entry per manager, operation (Update or Apply)
// and subresource, each with the FieldsV1 set of fields that manager set. An Update takes the fields it
// added or changed from every other manager and drops the fields it removed from everyone; an Apply
// owns exactly the fields of its configuration. Entries a write leaves alone are reused as they are.
import type { KubeObject, Resource } from "../../Api.ts"
import { isDeeplyFrozen, isJsonObject, jsonEqual } from "../store/JsonValue.ts"
import type { FieldTree } from "../validation/FieldTree.ts"
import { type FieldSet, difference, intersection, isEmptySet, isFieldSet, union } from "./FieldSet.ts"
import { type Comparison, changedOrAdded, compareObjects, objectFieldSet } from "./ObjectFields.ts"
import type { Writable } from "../../Writable.ts"

/** A manager's operation. */
export type Operation = "Apply" | "Update"

/** One metadata.managedFields entry. */
export interface ManagedEntry {
  readonly manager?: string
  readonly operation: Operation
  readonly apiVersion: string
  readonly time?: string
  readonly fieldsType: "FieldsV1"
  readonly fieldsV1: FieldSet
  readonly subresource?: string
}

/** Who writes: the manager, its operation, and where (the apiVersion and subresource of the request). */
export interface Writer {
  readonly manager: string | undefined
  readonly operation: Operation
  readonly apiVersion: string
  readonly subresource: "status" | undefined
}

const sameWriter = (entry: ManagedEntry, writer: Writer): boolean =>
  (entry.manager ?? "") === (writer.manager ?? "") && entry.operation === writer.operation && (entry.subresource ?? "") === (writer.subresource ?? "")

const isEntry = (value: unknown): value is ManagedEntry =>
  isJsonObject(value) &&
  (value["operation"] === "Apply" || value["operation"] === "Update") &&
  (value["manager"] === undefined || typeof value["manager"] === "string") &&
  (value["fieldsV1"] === undefined || isFieldSet(value["fieldsV1"]))

/**
 * The entries an object carries, or undefined when it carries none or any is malformed (the real server
 * then keeps the stored entries rather than fail the write).
 */
export const entriesOf = (object: unknown): ReadonlyArray<ManagedEntry> | undefined => {
  const metadata = isJsonObject(object) && isJsonObject(object["metadata"]) ? object["metadata"] : undefined
  const entries = metadata?.["managedFields"]
  // One empty entry is how a client clears them.
  if (Array.isArray(entries) && entries.length === 1 && isJsonObject(entries[0]) && Object.keys(entries[0]).length === 0) return []
  if (!Array.isArray(entries) || entries.length === 0) return undefined
  // Stored entries were checked when written and are frozen since: only a client's are looked through.
  return isDeeplyFrozen(entries) || entries.every(isEntry) ? entries : undefined
}

// Metadata no manager owns: the server sets it, or it names the object.
const serverMetadata: ReadonlySet<string> = new Set([
  "name",
  "namespace",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "managedFields",
  "selfLink"
])

/**
 * The part of an object a write through `subresource` manages: never apiVersion, kind or the server's
 * metadata; on the main endpoint of a kind with a status subresource, not status; on status, only status.
 * Parts are shared with the object, so comparing two scoped versions still skips what they share.
 */
export const scoped = (resource: Resource, object: KubeObject, subresource: "status" | undefined): Record<string, unknown> => {
  if (subresource === "status") return object["status"] === undefined ? {} : { status: object["status"] }
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(object)) {
    if (key === "apiVersion" || key === "kind" || (key === "status" && resource.hasStatus)) continue
    if (key !== "metadata") {
      out[key] = object[key]
      continue
    }
    const metadata = isJsonObject(object.metadata) ? object.metadata : {}
    const kept: Record<string, unknown> = {}
    let count = 0
    for (const k of Object.keys(metadata)) {
      if (serverMetadata.has(k)) continue
      kept[k] = metadata[k]
      // As Object.keys would count them: an assignment to __proto__ sets no own key.
      if (k !== "__proto__") count++
    }
    if (count > 0) out["metadata"] = kept
  }
  return out
}

// Built key by key in the real server's field order: this runs on most writes, and conditional spreads cost more.
const entryFor = (writer: Writer, set: FieldSet, time: string): ManagedEntry => {
  const entry: Writable<ManagedEntry> = { operation: writer.operation, apiVersion: writer.apiVersion, time, fieldsType: "FieldsV1", fieldsV1: set }
  if (writer.manager !== undefined && writer.manager !== "") entry.manager = writer.manager
  if (writer.subresource !== undefined) entry.subresource = writer.subresource
  return entry
}

// The real server's order: Apply before Update, then by time, manager, apiVersion and subresource.
const byServerOrder = (a: ManagedEntry, b: ManagedEntry): number =>
  a.operation.localeCompare(b.operation) ||
  (a.time ?? "").localeCompare(b.time ?? "") ||
  (a.manager ?? "").localeCompare(b.manager ?? "") ||
  a.apiVersion.localeCompare(b.apiVersion) ||
  (a.subresource ?? "").localeCompare(b.subresource ?? "")

/** The entries of a new object: its writer owns every field it set. */
export const createdEntries = (resource: Resource, tree: FieldTree, object: KubeObject, writer: Writer, time: string, applied?: FieldSet): ReadonlyArray<ManagedEntry> => {
  const set = applied ?? objectFieldSet(scoped(resource, object, writer.subresource), tree, resource.plural)
  return isEmptySet(set) ? [] : [entryFor(writer, set, time)]
}

// What a write from `old` to `next` does to the entries: what changed, what the writer takes, the writer's
// entry, and every other entry after it (the same objects where the write took nothing from them).
interface Attribution {
  readonly changes: Comparison
  readonly taken: FieldSet
  readonly mine: ManagedEntry | undefined
  readonly others: ReadonlyArray<ManagedEntry>
  readonly othersKept: boolean
}

/** One write to attribute: the kind, its field tree, the entries before, both versions, and the writer. */
export interface Write {
  readonly resource: Resource
  readonly tree: FieldTree
  readonly entries: ReadonlyArray<ManagedEntry>
  readonly old: KubeObject
  readonly next: KubeObject
  readonly writer: Writer
}

const attribute = ({ resource, tree, entries, old, next, writer }: Write): Attribution => {
  const changes = compareObjects(scoped(resource, old, writer.subresource), scoped(resource, next, writer.subresource), tree)
  const taken = changedOrAdded(changes)
  const others: Array<ManagedEntry> = []
  let othersKept = true
  let mine: ManagedEntry | undefined
  for (const entry of entries) {
    if (sameWriter(entry, writer)) {
      mine = entry
      continue
    }
    const left = difference(difference(entry.fieldsV1, taken), changes.removed)
    if (left === entry.fieldsV1) others.push(entry)
    else {
      othersKept = false
      if (!isEmptySet(left)) others.push({ ...entry, fieldsV1: left })
    }
  }
  return { changes, taken, mine, others, othersKept }
}

// The entries with the writer's: the same array when neither the writer's entry nor any other changed.
const withWriter = (entries: ReadonlyArray<ManagedEntry>, a: Attribution, entry: ManagedEntry): ReadonlyArray<ManagedEntry> => {
  if (entry === a.mine && a.othersKept) return entries
  return (isEmptySet(entry.fieldsV1) ? [...a.others] : [...a.others, entry]).sort(byServerOrder)
}

const isUnchanged = (c: Comparison): boolean => c.added === undefined && c.removed === undefined && c.modified === undefined

/**
 * The entries after an Update from `old` to `next`: the writer takes what it added or changed, and what it
 * removed leaves every manager. The same array comes back when the write changed no managed field.
 */
export const updatedEntries = (write: Write, time: () => string): ReadonlyArray<ManagedEntry> => {
  const { entries, writer } = write
  const a = attribute(write)
  if (isUnchanged(a.changes)) return entries
  const set = union(difference(a.mine?.fieldsV1 ?? {}, a.changes.removed), a.taken)
  const stamp = time()
  // The same fields at the same time (the clock stands still between steps): the entry stays as it was.
  const same = a.mine !== undefined && a.mine.fieldsV1 === set && a.mine.time === stamp && a.mine.apiVersion === writer.apiVersion
  return withWriter(entries, a, same && a.mine !== undefined ? a.mine : entryFor(writer, set, stamp))
}

/** A field an apply would take from another manager. */
export interface OwnedConflict {
  readonly entry: ManagedEntry
  readonly fields: FieldSet
}

/**
 * The entries after an Apply from `old` to `next` whose configuration sets `applied`, or the conflicts
 * with other managers when not forced. Forced, the writer takes the conflicting fields.
 */
export const appliedEntries = (
  write: Write,
  applied: FieldSet,
  time: string,
  force: boolean
): { readonly entries: ReadonlyArray<ManagedEntry> } | { readonly conflicts: ReadonlyArray<OwnedConflict> } => {
  const { entries, writer } = write
  const a = attribute(write)
  if (!force) {
    const conflicts = entries.flatMap((entry) => {
      if (sameWriter(entry, writer)) return []
      const fields = intersection(entry.fieldsV1, a.taken)
      return isEmptySet(fields) ? [] : [{ entry, fields }]
    })
    if (conflicts.length > 0) return { conflicts }
  }
  const keep = a.mine !== undefined && isUnchanged(a.changes) && jsonEqual(a.mine.fieldsV1, applied) && a.mine.apiVersion === writer.apiVersion
  return { entries: withWriter(entries, a, keep && a.mine !== undefined ? a.mine : entryFor(writer, applied, time)) }
}

/** The object with its managedFields replaced (removed when there are none). */
export const withEntries = (object: KubeObject, entries: ReadonlyArray<ManagedEntry>): KubeObject => {
  const metadata = isJsonObject(object.metadata) ? object.metadata : {}
  if (metadata["managedFields"] === entries) return object
  // A loop, not a rest spread: this runs on every write, and V8's object rest is several times slower.
  const rest: Record<string, unknown> = {}
  for (const key of Object.keys(metadata)) if (key !== "managedFields") rest[key] = metadata[key]
  if (entries.length > 0) rest["managedFields"] = entries
  return { ...object, metadata: rest }
}
