// A set of field paths in the API server's own notation, FieldsV1: a trie whose keys are path elements
// (`f:name` a field, `k:{"name":"x"}` a keyed list item, `v:"x"` a set item, `i:0` an index) and whose
// node is itself in the set when it has no children or carries the `.` key. Managed fields store it as
// is, so the set needs no conversion on the way in or out, and the operations below build new tries
// that share every untouched branch with their inputs.

import { freezeJson } from "../store/JsonValue.ts"

/** A set of field paths, as FieldsV1 writes it. */
export type FieldSet = { readonly [element: string]: FieldSet }

/** One path: its elements in FieldsV1's spelling (`f:spec`, `k:{"name":"x"}`, ...). */
export type FieldPath = ReadonlyArray<string>

const self = "."
// One leaf for every set: most nodes are leaves, and a shared, already frozen one costs the store nothing to freeze.
const leaf: FieldSet = freezeJson({})

/** The node of a path with nothing below it (shared: never build another). */
export const leafSet: FieldSet = leaf

/** The empty set. */
export const emptySet: FieldSet = leaf

// A node is a member when it has no children (a leaf) or says so with ".". The root is never a member.
const childKeys = (node: FieldSet): ReadonlyArray<string> => Object.keys(node).filter((k) => k !== self)
const isMember = (node: FieldSet): boolean => Object.hasOwn(node, self) || Object.keys(node).length === 0

/** A node from its children and whether it is itself a member; undefined when it holds no member at all. */
export const nodeOf = (children: Readonly<Record<string, FieldSet>>, member: boolean): FieldSet | undefined => {
  const keys = Object.keys(children)
  if (keys.length === 0) return member ? leaf : undefined
  return member ? { [self]: leaf, ...children } : children
}

/** True when the set holds no path. */
export const isEmptySet = (set: FieldSet | undefined): boolean => set === undefined || childKeys(set).length === 0

// The root-level operations treat the root as a node that is never a member.
const rootOf = (node: FieldSet | undefined): FieldSet => {
  if (node === undefined) return emptySet
  const { [self]: _member, ...rest } = node
  return Object.hasOwn(node, self) ? rest : node
}

// `a` itself when `b` adds nothing to it, so an owner's set that a write leaves as it was stays shared.
const unionNode = (a: FieldSet, b: FieldSet): FieldSet => {
  if (a === b) return a
  const children: Record<string, FieldSet> = {}
  for (const k of childKeys(a)) children[k] = a[k] as FieldSet
  let changed = false
  for (const k of childKeys(b)) {
    const other = b[k] as FieldSet
    const mine = children[k]
    const merged = mine === undefined ? other : unionNode(mine, other)
    if (merged !== mine) changed = true
    children[k] = merged
  }
  // A leaf is a member; so is a node with "."; a node that only leads to others is not.
  if (!changed && (isMember(a) || !isMember(b))) return a
  return nodeOf(children, isMember(a) || isMember(b)) ?? leaf
}

/** Every path in either set. */
export const union = (a: FieldSet | undefined, b: FieldSet | undefined): FieldSet => {
  if (a === undefined || isEmptySet(a)) return rootOf(b)
  if (b === undefined || isEmptySet(b)) return rootOf(a)
  return rootOf(unionNode(rootOf(a), rootOf(b)))
}

// `recursive`: removing a path removes every path below it too.
const differenceNode = (a: FieldSet, b: FieldSet, recursive: boolean, member: boolean): FieldSet | undefined => {
  if (recursive && isMember(b) && member) return undefined
  const children: Record<string, FieldSet> = {}
  let changed = false
  for (const k of childKeys(a)) {
    const mine = a[k] as FieldSet
    const other = Object.hasOwn(b, k) ? b[k] : undefined
    if (other === undefined) {
      children[k] = mine
      continue
    }
    changed = true
    const rest = differenceNode(mine, other, recursive, true)
    if (rest !== undefined) children[k] = rest
  }
  const stays = member && isMember(a) && !isMember(b)
  if (!changed && stays === (member && isMember(a))) return a
  return nodeOf(children, stays)
}

/** The paths of `a` not in `b`; a path's children stay unless they are in `b` too. */
export const difference = (a: FieldSet, b: FieldSet | undefined): FieldSet =>
  b === undefined || isEmptySet(b) ? a : (differenceNode(rootOf(a), rootOf(b), false, false) ?? emptySet)

/** The paths of `a` that are neither in `b` nor below a path of `b`. */
export const recursiveDifference = (a: FieldSet, b: FieldSet | undefined): FieldSet =>
  b === undefined || isEmptySet(b) ? a : (differenceNode(rootOf(a), rootOf(b), true, false) ?? emptySet)

const intersectionNode = (a: FieldSet, b: FieldSet, member: boolean): FieldSet | undefined => {
  const children: Record<string, FieldSet> = {}
  for (const k of childKeys(a)) {
    if (!Object.hasOwn(b, k)) continue
    const both = intersectionNode(a[k] as FieldSet, b[k] as FieldSet, true)
    if (both !== undefined) children[k] = both
  }
  return nodeOf(children, member && isMember(a) && isMember(b))
}

/** The paths in both sets. */
export const intersection = (a: FieldSet, b: FieldSet): FieldSet => intersectionNode(rootOf(a), rootOf(b), false) ?? emptySet

/** Every path in the set, depth first in key order. */
export const pathsOf = (set: FieldSet): ReadonlyArray<FieldPath> => {
  const out: Array<FieldPath> = []
  const walk = (node: FieldSet, path: ReadonlyArray<string>, member: boolean): void => {
    if (member && isMember(node)) out.push(path)
    for (const k of [...childKeys(node)].sort()) walk(node[k] as FieldSet, [...path, k], true)
  }
  walk(rootOf(set), [], false)
  return out
}

/** The set holding the given paths. */
export const setOfPaths = (paths: Iterable<FieldPath>): FieldSet => {
  let set: FieldSet = emptySet
  for (const path of paths) {
    if (path.length === 0) continue
    let node: FieldSet = leaf
    for (let i = path.length - 1; i > 0; i--) node = { [path[i] as string]: node }
    set = union(set, { [path[0] as string]: node })
  }
  return set
}

/** True when the path is in the set. */
export const hasPath = (set: FieldSet, path: FieldPath): boolean => {
  let node: FieldSet = rootOf(set)
  for (const element of path) {
    if (element === self || !Object.hasOwn(node, element)) return false
    node = node[element] as FieldSet
  }
  return path.length > 0 && isMember(node)
}

/** True when the set holds the path or any path below it. */
export const reachesPath = (set: FieldSet, path: FieldPath): boolean => {
  let node: FieldSet = rootOf(set)
  for (const element of path) {
    if (element === self || !Object.hasOwn(node, element)) return false
    node = node[element] as FieldSet
  }
  return true
}

/** The set's keys and values are what FieldsV1 allows: every key a path element, every value a set. */
export const isFieldSet = (value: unknown): value is FieldSet => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false
  return Object.entries(value).every(([k, v]) => (k === self || /^[fkvi]:/.test(k)) && isFieldSet(v))
}

/** One path element as the API server prints it in a conflict: `.spec`, `[name="x"]`, `[="x"]`, `[0]`. */
export const printElement = (element: string): string => {
  const body = element.slice(2)
  switch (element.slice(0, 2)) {
    case "f:":
      return `.${body}`
    case "k:": {
      try {
        const key = JSON.parse(body) as Record<string, unknown>
        return `[${Object.entries(key)
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join(",")}]`
      } catch {
        return `[${body}]`
      }
    }
    case "v:":
      return `[=${body}]`
    case "i:":
      return `[${body}]`
    default:
      return element
  }
}

/** A path as the API server prints it in a conflict, e.g. `.spec.containers[name="x"].image`. */
export const printPath = (path: FieldPath): string => path.map(printElement).join("")
