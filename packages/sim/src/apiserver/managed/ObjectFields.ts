// The fields an object sets, as a FieldSet, and what changed between two versions of an object (added,
// removed and modified paths), read through a kind's field tree and the list types: structs own their
// fields, maps and keyed list items are owned themselves too, atomic lists and scalars are one field.
// Comparing skips every part the two versions share by reference, so a write that changes one field
// costs that field, not the object (stored objects are frozen and new versions share their parts).
import { type FieldTree } from "../validation/FieldTree.ts"
import { isDeeplyFrozen, isJsonObject, jsonEqual } from "../store/JsonValue.ts"
import { type FieldSet, leafSet, nodeOf, union } from "./FieldSet.ts"
import { isMapField, type ListType, listTypeOf } from "./ListTypes.ts"

/** The paths an update added, removed or changed the value of. */
export interface Comparison {
  readonly added: FieldSet | undefined
  readonly removed: FieldSet | undefined
  readonly modified: FieldSet | undefined
}

const noChange: Comparison = { added: undefined, removed: undefined, modified: undefined }

/** The FieldsV1 element of an object field. */
export const fieldElement = (name: string): string => {
  const known = fieldElements.get(name)
  if (known !== undefined) return known
  if (fieldElements.size >= fieldElementCacheSize) fieldElements.clear()
  const element = `f:${name}`
  fieldElements.set(name, element)
  return element
}

// Field names repeat from object to object: the element made once is reused, which spares building and
// interning a new key string per field of every write (bounded, as names made up by the million could be).
// Module state that is a pure memo cache of constant input (field names): every simulator may share it.
const fieldElements = new Map<string, string>()
const fieldElementCacheSize = 8192

const childTree = (tree: FieldTree, key: string): FieldTree => {
  if (typeof tree === "string") return "open"
  if ("fields" in tree) return Object.hasOwn(tree.fields, key) ? (tree.fields[key] ?? "open") : "open"
  if ("values" in tree) return tree.values
  return "open"
}

const itemTree = (tree: FieldTree): FieldTree => (typeof tree === "object" && "items" in tree ? tree.items : "open")

const isMap = (tree: FieldTree, field: string): boolean => (typeof tree === "object" ? "values" in tree : isMapField(field))

const isScalar = (value: unknown): boolean => value === null || typeof value !== "object"

/**
 * The key element of a keyed list item (`k:{"name":"x"}`), or undefined when the item cannot be keyed. A
 * key field the item leaves out takes its schema default (a port's protocol, TCP), as the server keys it.
 */
export const keyElement = (item: unknown, keys: ReadonlyArray<string>, defaults?: Readonly<Record<string, unknown>>): string | undefined => {
  if (!isJsonObject(item)) return undefined
  // The JSON of an object of the key fields in sorted order, written member by member: this runs for
  // every item of every keyed list a write holds.
  let members = ""
  for (const k of keys.length === 1 ? keys : [...keys].sort()) {
    const v = item[k] ?? defaults?.[k]
    if (v === undefined) continue
    if (!isScalar(v)) return undefined
    members += `${members === "" ? "" : ","}${JSON.stringify(k)}:${JSON.stringify(v)}`
  }
  return members === "" ? undefined : `k:{${members}}`
}

/** The value element of a set item (`v:"x"`). */
export const valueElement = (item: unknown): string => `v:${JSON.stringify(item)}`

/**
 * How a list's items are addressed: a keyed list's key elements or a set's value elements, one per item,
 * or undefined when the list is atomic (or its items cannot be told apart, which makes it one value).
 */
export const itemElements = (list: ReadonlyArray<unknown>, listType: ListType): ReadonlyArray<string> | undefined => {
  if (listType.type === "atomic") return undefined
  const elements: Array<string> = []
  for (const item of list) {
    const element = listType.type === "map" ? keyElement(item, listType.keys, listType.defaults) : isScalar(item) ? valueElement(item) : undefined
    if (element === undefined) return undefined
    elements.push(element)
  }
  // Most lists hold one item, which cannot repeat: only longer ones need the set.
  return elements.length < 2 || new Set(elements).size === elements.length ? elements : undefined
}

// Field sets of frozen parts, which never change: a value written again is not walked again.
// Module state that is a pure memo cache of constant input (frozen parts; the tree is checked on use): every simulator may share it.
const memo = new WeakMap<object, { readonly tree: FieldTree; readonly field: string; readonly set: FieldSet }>()

/** The node of the set a value at a field contributes (the value's own path included when it is owned itself). */
export const valueFieldSet = (value: unknown, tree: FieldTree, field: string): FieldSet => fieldSetOf(value, tree, field, false)

// `member`: the value is a list item, owned itself (withMember's node). A value not frozen has its node
// built with "." from the start, sparing the copy withMember would make; a frozen one's memo holds the
// plain node, shared, so its member form is a copy.
const fieldSetOf = (value: unknown, tree: FieldTree, field: string, member: boolean): FieldSet => {
  if (isScalar(value)) return leafSet
  if (!isDeeplyFrozen(value)) return computeValueFieldSet(value as object, tree, field, member)
  const hit = memo.get(value as object)
  if (hit !== undefined && hit.tree === tree && hit.field === field) return member ? withMember(hit.set) : hit.set
  const set = computeValueFieldSet(value as object, tree, field, false)
  memo.set(value as object, { tree, field, set })
  return member ? withMember(set) : set
}

// Children are gathered under a node that already holds "." when it is a member, as nodeOf would build it.
const computeValueFieldSet = (value: object, tree: FieldTree, field: string, member: boolean): FieldSet => {
  if (Array.isArray(value)) {
    const elements = itemElements(value, listTypeOf(field, tree))
    if (elements === undefined || elements.length === 0) return leafSet
    const children: Record<string, FieldSet> = member ? { ".": leafSet } : {}
    const items = itemTree(tree)
    for (let i = 0; i < elements.length; i++) children[elements[i] ?? ""] = fieldSetOf(value[i], items, field, true)
    return children
  }
  return objectNode(value as Record<string, unknown>, tree, field, member, undefined)
}

// An object's node: its members' sets under their elements. `kind`: its members are parts of objects
// made alike (see partFieldSet), found under that path.
const objectNode = (object: Record<string, unknown>, tree: FieldTree, field: string, member: boolean, kind: string | undefined): FieldSet => {
  const children: Record<string, FieldSet> = member || isMap(tree, field) ? { ".": leafSet } : {}
  let count = 0
  for (const key of Object.keys(object)) {
    const v = object[key]
    if (v === undefined) continue
    children[fieldElement(key)] = kind === undefined ? valueFieldSet(v, childTree(tree, key), key) : partFieldSet(v, childTree(tree, key), key, kind)
    count++
  }
  return count === 0 ? leafSet : children
}

// A keyed list item or set item is owned itself, whatever it holds.
const withMember = (node: FieldSet): FieldSet =>
  node === leafSet || Object.hasOwn(node, ".") || Object.keys(node).length === 0 ? node : { ".": leafSet, ...node }

/**
 * Every field an object sets (the object itself is not a path). `kind` names the objects this one is
 * made like (its resource): their frozen parts' sets are told apart from the last one's by shape.
 */
export const objectFieldSet = (object: Record<string, unknown>, tree: FieldTree, kind?: string): FieldSet => {
  const children: Record<string, FieldSet> = {}
  for (const key of Object.keys(object)) {
    if (object[key] === undefined) continue
    const sub = childTree(tree, key)
    children[fieldElement(key)] = kind === undefined ? valueFieldSet(object[key], sub, key) : partFieldSet(object[key], sub, key, kind)
  }
  return nodeOf(children, false) ?? leafSet
}

// The last frozen top-level part whose set was built, per kind and field: objects of a kind are mostly
// made alike (every Start's runtime copy, TrainJob, JobSet and Job have the same spec but for names and
// values), and telling that a new part has the same shape as the last one costs a walk that builds
// nothing, where building its set makes a node per field. Only frozen parts are kept or reused from, so
// what is kept can never change under it; one part per kind and field is kept.
interface RecentPart {
  readonly value: object
  readonly tree: FieldTree
  readonly set: FieldSet
}
// Module state that is a pure memo cache of constant input (frozen parts; the tree is checked on use): every simulator may share it.
const recentParts = new Map<string, Map<string, RecentPart>>()
// Fields per kind kept at most (a kind whose schema is open may be sent any top-level field).
const recentFieldsPerKind = 64

// An object not frozen itself (the metadata a write manages, gathered anew) is built member by member,
// each frozen member looked up as a part of its own, under the path that leads to it.
const partFieldSet = (value: unknown, tree: FieldTree, field: string, kind: string): FieldSet => {
  if (isScalar(value)) return leafSet
  if (!isDeeplyFrozen(value)) return Array.isArray(value) ? valueFieldSet(value, tree, field) : objectNode(value as Record<string, unknown>, tree, field, false, `${kind}/${field}`)
  let byField = recentParts.get(kind)
  if (byField === undefined) {
    byField = new Map()
    recentParts.set(kind, byField)
  }
  const recent = byField.get(field)
  if (recent !== undefined && recent.tree === tree && sameFieldSet(value, recent.value, tree, field)) return recent.set
  const set = valueFieldSet(value, tree, field)
  if (byField.size >= recentFieldsPerKind && !byField.has(field)) byField.clear()
  byField.set(field, { value: value as object, tree, set })
  return set
}

// The JSON of two scalars, which is what their elements are made of, is the same.
const sameScalarJson = (a: unknown, b: unknown): boolean => a === b || JSON.stringify(a) === JSON.stringify(b)

// How an item's element compares with another's, without building either (see keyElement and
// valueElement): "same" element, both "none" (the list then has none, and is one value), or "differ"
// (which includes cases that might in fact match: the answer is only ever used to skip work).
type ElementMatch = "same" | "none" | "differ"

const keyElementMatch = (a: unknown, b: unknown, keys: ReadonlyArray<string>, defaults?: Readonly<Record<string, unknown>>): ElementMatch => {
  const aObject = isJsonObject(a)
  if (aObject !== isJsonObject(b)) return "differ"
  if (!aObject) return "none"
  let members = false
  for (const k of keys.length === 1 ? keys : [...keys].sort()) {
    const x = (a as Record<string, unknown>)[k] ?? defaults?.[k]
    const y = (b as Record<string, unknown>)[k] ?? defaults?.[k]
    if (x === undefined || y === undefined) {
      if (x !== y) return "differ"
      continue
    }
    const xScalar = isScalar(x)
    if (xScalar !== isScalar(y)) return "differ"
    if (!xScalar) return "none"
    if (!sameScalarJson(x, y)) return "differ"
    members = true
  }
  return members ? "same" : "none"
}

const valueElementMatch = (a: unknown, b: unknown): ElementMatch => {
  const aScalar = isScalar(a)
  if (aScalar !== isScalar(b)) return "differ"
  if (!aScalar) return "none"
  return sameScalarJson(a, b) ? "same" : "differ"
}

/**
 * True when two values give the same field set at a field (valueFieldSet's): the same keys in the same
 * order, the same list items' keys and set items' values, whatever their other scalars hold. It may say
 * false of two that do (a list and an empty object both give a leaf), never true of two that do not.
 */
export const sameFieldSet = (a: unknown, b: unknown, tree: FieldTree, field: string): boolean => {
  if (a === b) return true
  const aScalar = isScalar(a)
  if (aScalar || isScalar(b)) return aScalar && isScalar(b)
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b)) return false
    const listType = listTypeOf(field, tree)
    if (listType.type === "atomic") return true
    if (a.length !== b.length) return false
    let unkeyed = false
    for (let i = 0; i < a.length; i++) {
      const match = listType.type === "map" ? keyElementMatch(a[i], b[i], listType.keys, listType.defaults) : valueElementMatch(a[i], b[i])
      if (match === "differ") return false
      if (match === "none") unkeyed = true
    }
    // An item that cannot be keyed makes each list one value, a leaf, whatever its items hold.
    if (unkeyed) return true
    const items = itemTree(tree)
    for (let i = 0; i < a.length; i++) if (!sameFieldSet(a[i], b[i], items, field)) return false
    return true
  }
  const x = a as Record<string, unknown>
  const y = b as Record<string, unknown>
  const yKeys = Object.keys(y)
  let j = 0
  // for-in lists an object's own keys in Object.keys' order without making the list, which this walk made
  // for every node of every part it compared; a key it lists that y does not own (one inherited, if
  // anyone made Object.prototype's enumerable) can only answer false, which is always safe.
  for (const key in x) {
    if (x[key] === undefined) continue
    while (j < yKeys.length && y[yKeys[j] ?? ""] === undefined) j++
    if (yKeys[j] !== key || !sameFieldSet(x[key], y[key], childTree(tree, key), key)) return false
    j++
  }
  while (j < yKeys.length && y[yKeys[j] ?? ""] === undefined) j++
  return j === yKeys.length
}

// One level of a comparison: the children's results gathered under their elements. Each record is made
// on its first child: most levels a write compares change one kind of thing, or nothing.
class Gathered {
  private added: Record<string, FieldSet> | undefined
  private removed: Record<string, FieldSet> | undefined
  private modified: Record<string, FieldSet> | undefined

  put(element: string, c: Comparison): void {
    if (c.added !== undefined) (this.added ??= {})[element] = c.added
    if (c.removed !== undefined) (this.removed ??= {})[element] = c.removed
    if (c.modified !== undefined) (this.modified ??= {})[element] = c.modified
  }

  result(memberAdded: boolean, memberRemoved: boolean): Comparison {
    const added = this.added === undefined ? (memberAdded ? leafSet : undefined) : nodeOf(this.added, memberAdded)
    const removed = this.removed === undefined ? (memberRemoved ? leafSet : undefined) : nodeOf(this.removed, memberRemoved)
    const modified = this.modified === undefined ? undefined : nodeOf(this.modified, false)
    return added === undefined && removed === undefined && modified === undefined ? noChange : { added, removed, modified }
  }
}

const entered = (value: unknown, tree: FieldTree, field: string): FieldSet | undefined => (value === undefined ? undefined : valueFieldSet(value, tree, field))

// Whether the value's own path is in its set (a map, an empty struct or list, a scalar).
const ownsItself = (value: unknown, tree: FieldTree, field: string): boolean => {
  if (isScalar(value)) return true
  if (Array.isArray(value)) return value.length === 0 || itemElements(value, listTypeOf(field, tree)) === undefined
  return isMap(tree, field) || Object.keys(value as object).length === 0
}

const compareValues = (old: unknown, next: unknown, tree: FieldTree, field: string): Comparison => {
  if (old === next) return noChange
  if (old === undefined) return { added: entered(next, tree, field), removed: undefined, modified: undefined }
  if (next === undefined) return { added: undefined, removed: entered(old, tree, field), modified: undefined }
  if (isScalar(old) || isScalar(next) || Array.isArray(old) !== Array.isArray(next)) {
    if (isScalar(old) && isScalar(next)) return { added: undefined, removed: undefined, modified: leafSet }
    return { added: entered(next, tree, field), removed: entered(old, tree, field), modified: undefined }
  }
  const gathered = new Gathered()
  if (Array.isArray(old) && Array.isArray(next)) {
    const listType = listTypeOf(field, tree)
    const oldElements = itemElements(old, listType)
    const nextElements = itemElements(next, listType)
    if (oldElements === undefined || nextElements === undefined) {
      if (oldElements === undefined && nextElements === undefined) return jsonEqual(old, next) ? noChange : { added: undefined, removed: undefined, modified: leafSet }
      return { added: entered(next, tree, field), removed: entered(old, tree, field), modified: undefined }
    }
    const items = itemTree(tree)
    const before = new Map(oldElements.map((e, i) => [e, old[i]] as const))
    const after = new Map(nextElements.map((e, i) => [e, next[i]] as const))
    for (const [element, value] of after) {
      const was = before.get(element)
      if (was === undefined) gathered.put(element, { added: fieldSetOf(value, items, field, true), removed: undefined, modified: undefined })
      else if (listType.type === "map") gathered.put(element, compareValues(was, value, items, field))
    }
    for (const [element, value] of before) {
      if (!after.has(element)) gathered.put(element, { added: undefined, removed: fieldSetOf(value, items, field, true), modified: undefined })
    }
  } else {
    const a = old as Record<string, unknown>
    const b = next as Record<string, unknown>
    for (const key of Object.keys(b)) gathered.put(fieldElement(key), compareValues(a[key], b[key], childTree(tree, key), key))
    for (const key of Object.keys(a)) {
      if (!Object.hasOwn(b, key) || b[key] === undefined) gathered.put(fieldElement(key), compareValues(a[key], undefined, childTree(tree, key), key))
    }
  }
  const wasOwned = ownsItself(old, tree, field)
  const isOwned = ownsItself(next, tree, field)
  return gathered.result(isOwned && !wasOwned, wasOwned && !isOwned)
}

/** What changed between two versions of an object, path by path. */
export const compareObjects = (old: Record<string, unknown>, next: Record<string, unknown>, tree: FieldTree): Comparison => {
  const gathered = new Gathered()
  for (const key of Object.keys(next)) gathered.put(fieldElement(key), compareValues(old[key], next[key], childTree(tree, key), key))
  for (const key of Object.keys(old)) {
    if (!Object.hasOwn(next, key) || next[key] === undefined) gathered.put(fieldElement(key), compareValues(old[key], undefined, childTree(tree, key), key))
  }
  const c = gathered.result(false, false)
  return c
}

/** The paths an update changed or added: what its manager takes from others. */
export const changedOrAdded = (c: Comparison): FieldSet => union(c.added, c.modified)

export { childTree, itemTree }
