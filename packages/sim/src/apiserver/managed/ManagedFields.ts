// metadata.managedFields as the API server keeps it: one entry per manager, operation (Update or Apply)
// and subresource, each with the FieldsV1 set of fields that manager set. An Update takes the fields it
// added or changed from every other manager and drops the fields it removed from everyone; an Apply
// owns exactly the fields of its configuration. Entries a write leaves alone are reused as they are.
import type { KubeObject, Resource } from "../../Api.ts"
import { isDeeplyFrozen, isJsonObject, jsonEqual } from "../store/JsonValue.ts"
import type { FieldTree } from "../validation/FieldTree.ts"
import { type FieldSet, difference, intersection, isEmptySet, isFieldSet, union } from "./FieldSet.ts"
import { type Comparison, changedOrAdded, compareObjects, objectFieldSet } from "./ObjectFields.ts"

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
const serverMetadata = ["name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "managedFields", "selfLink"]

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
    for (const k of Object.keys(metadata)) if (!serverMetadata.includes(k)) kept[k] = metadata[k]
    if (Object.keys(kept).length > 0) out["metadata"] = kept
  }
  return out
}

const entryFor = (writer: Writer, set: FieldSet, time: string): ManagedEntry => ({
  ...(writer.manager === undefined || writer.manager === "" ? {} : { manager: writer.manager }),
  operation: writer.operation,
  apiVersion: writer.apiVersion,
  time,
  fieldsType: "FieldsV1",
  fieldsV1: set,
  ...(writer.subresource === undefined ? {} : { subresource: writer.subresource })
})

// The real server's order: Apply before Update, then by time, manager, apiVersion and subresource.
const byServerOrder = (a: ManagedEntry, b: ManagedEntry): number =>
  a.operation.localeCompare(b.operation) ||
  (a.time ?? "").localeCompare(b.time ?? "") ||
  (a.manager ?? "").localeCompare(b.manager ?? "") ||
  a.apiVersion.localeCompare(b.apiVersion) ||
  (a.subresource ?? "").localeCompare(b.subresource ?? "")

/** The entries of a new object: its writer owns every field it set. */
export const createdEntries = (resource: Resource, tree: FieldTree, object: KubeObject, writer: Writer, time: string, applied?: FieldSet): ReadonlyArray<ManagedEntry> => {
  const set = applied ?? objectFieldSet(scoped(resource, object, writer.subresource), tree)
  return isEmptySet(set) ? [] : [entryFor(writer, set, time)]
}

/** What a comparison takes from the other managers, and the result for each entry but the writer's. */
const othersAfter = (entries: ReadonlyArray<ManagedEntry>, writer: Writer, c: Comparison, taken: FieldSet): Array<ManagedEntry> => {
  const out: Array<ManagedEntry> = []
  for (const entry of entries) {
    if (sameWriter(entry, writer)) continue
    const left = difference(difference(entry.fieldsV1, taken), c.removed)
    if (left === entry.fieldsV1) out.push(entry)
    else if (!isEmptySet(left)) out.push({ ...entry, fieldsV1: left })
  }
  return out
}

const isUnchanged = (c: Comparison): boolean => c.added === undefined && c.removed === undefined && c.modified === undefined

/**
 * The entries after an Update from `old` to `next`: the writer takes what it added or changed, and what it
 * removed leaves every manager. The same array comes back when the write changed no managed field.
 */
export const updatedEntries = (
  resource: Resource,
  tree: FieldTree,
  entries: ReadonlyArray<ManagedEntry>,
  old: KubeObject,
  next: KubeObject,
  writer: Writer,
  time: () => string
): ReadonlyArray<ManagedEntry> => {
  const c = compareObjects(scoped(resource, old, writer.subresource), scoped(resource, next, writer.subresource), tree)
  if (isUnchanged(c)) return entries
  const taken = changedOrAdded(c)
  const mine = entries.find((e) => sameWriter(e, writer))
  const set = union(difference(mine?.fieldsV1 ?? {}, c.removed), taken)
  const others = othersAfter(entries, writer, c, taken)
  const stamp = time()
  // The same fields at the same time (the clock stands still between steps): the entry stays as it was.
  const same = mine !== undefined && mine.fieldsV1 === set && mine.time === stamp && mine.apiVersion === writer.apiVersion
  if (same && others.length === entries.length - 1 && others.every((e, i) => e === entries.filter((x) => x !== mine)[i])) return entries
  const entry = same ? mine : entryFor(writer, set, stamp)
  return (isEmptySet(set) ? others : [...others, entry]).sort(byServerOrder)
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
  resource: Resource,
  tree: FieldTree,
  entries: ReadonlyArray<ManagedEntry>,
  old: KubeObject,
  next: KubeObject,
  writer: Writer,
  applied: FieldSet,
  time: string,
  force: boolean
): { readonly entries: ReadonlyArray<ManagedEntry> } | { readonly conflicts: ReadonlyArray<OwnedConflict> } => {
  const c = compareObjects(scoped(resource, old, writer.subresource), scoped(resource, next, writer.subresource), tree)
  const taken = changedOrAdded(c)
  if (!force) {
    const conflicts = entries.flatMap((entry) => {
      if (sameWriter(entry, writer)) return []
      const fields = intersection(entry.fieldsV1, taken)
      return isEmptySet(fields) ? [] : [{ entry, fields }]
    })
    if (conflicts.length > 0) return { conflicts }
  }
  const mine = entries.find((e) => sameWriter(e, writer))
  const others = othersAfter(entries, writer, c, taken)
  const keepTime = mine !== undefined && isUnchanged(c) && jsonEqual(mine.fieldsV1, applied) && mine.apiVersion === writer.apiVersion
  const entry = keepTime ? mine : entryFor(writer, applied, time)
  if (keepTime && others.length === entries.length - 1) return { entries }
  return { entries: (isEmptySet(applied) ? others : [...others, entry]).sort(byServerOrder) }
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
