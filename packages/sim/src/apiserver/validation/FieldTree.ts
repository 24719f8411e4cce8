// A compact description of the fields a kind's schema defines, and the two things the API server does
// with it: pruning (fields the schema does not define are dropped, or named for a strict request) and
// type checks (each defined field must hold its type). An "open" subtree keeps whatever it holds, as
// `x-kubernetes-preserve-unknown-fields` does; the simulator uses it for the deep core/v1 subtrees
// (pod specs and the like) it does not describe.
import { type FieldError, invalidValue, wrongType } from "./FieldErrors.ts"
import { isDeeplyFrozen, isJsonObject, jsonCopyUnfrozen, putOwn } from "../store/JsonValue.ts"
import type { ListType } from "../managed/ListTypes.ts"

/**
 * A scalar field's type; "quantity" is a resource quantity (integer, or a string of Kubernetes' quantity
 * form); "int-or-string" is an IntOrString (a port, a percentage); "number" any JSON number.
 */
export type LeafType = "string" | "integer" | "number" | "boolean" | "quantity" | "int-or-string" | "any"

/** What a schema says about one field. */
export type FieldTree =
  | LeafType
  /** Anything goes below, and is kept. */
  | "open"
  | { readonly fields: Readonly<Record<string, FieldTree>> }
  /** A list; `listType` is how its items merge (x-kubernetes-list-type), when the schema says so itself. */
  | { readonly items: FieldTree; readonly listType?: ListType }
  | { readonly values: FieldTree }

/** An object with these fields (any other is unknown). */
export const fields = (described: Readonly<Record<string, FieldTree>>): FieldTree => ({ fields: described })
/** A list whose items are described by `tree` (merged as `listType` says, when given). */
export const listOf = (tree: FieldTree, listType?: ListType): FieldTree => (listType === undefined ? { items: tree } : { items: tree, listType })
/** A map from any key to values described by `tree`. */
export const mapOf = (tree: FieldTree): FieldTree => ({ values: tree })

/** The pattern the CRDs give resource quantities. */
export const quantityPattern = /^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$/

const child = (path: string, key: string): string => (path === "" ? key : `${path}.${key}`)

/** The value with every field the tree does not define removed, and the paths of those fields (in order found). */
export interface Pruned {
  readonly value: unknown
  readonly unknown: ReadonlyArray<string>
}

// Where a walk is below its base path: object keys and list indexes pushed on the way down and popped on
// the way up, so that entering a field allocates nothing (a closure per field made most of a write's
// garbage); the path is spelled out only for an error or an unknown field, as level-by-level joins would.
class WalkPath {
  private readonly steps: Array<string | number> = []

  constructor(private readonly base: string) {}

  push(step: string | number): void {
    this.steps.push(step)
  }

  pop(): void {
    this.steps.pop()
  }

  text(): string {
    let path = this.base
    for (const step of this.steps) path = typeof step === "number" ? `${path}[${step}]` : child(path, step)
    return path
  }
}

// A level of an object built anew (a field below it was dropped or replaced): its first `count` members as they are.
const membersBefore = (value: Record<string, unknown>, keys: ReadonlyArray<string>, count: number): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (let i = 0; i < count; i++) {
    const key = keys[i] ?? ""
    putOwn(out, key, value[key])
  }
  return out
}

// A value kept whole: copied (but for deeply frozen parts) when the result must share nothing with the body.
const kept = (value: unknown, copy: boolean): unknown => (copy ? jsonCopyUnfrozen(value) : value)

// `stored` is the same place in the stored object an update replaces: a part left as stored (frozen, so
// unchanged since it was pruned by this same tree when written) has nothing to prune. With `copy`, what is
// kept is copied (but for deeply frozen parts), so the result is the server's own and the body needs no copy
// before. Without (a value handed over: its maker keeps no hold on it), what is kept is kept as it is, and
// only a level that loses a field below it is built anew, so a value with nothing to prune comes back
// itself. Paths are spelled out only for an unknown field: this runs on every write, and most bodies have none.
const pruneAt = (tree: FieldTree, value: unknown, path: WalkPath, unknown: Array<string>, stored: unknown, copy: boolean): unknown => {
  if (typeof tree === "string") return kept(value, copy)
  if (value === stored && isDeeplyFrozen(value)) return value
  if ("items" in tree) {
    if (!Array.isArray(value)) return kept(value, copy)
    const storedItems = Array.isArray(stored) ? stored : []
    let out: Array<unknown> | undefined = copy ? [] : undefined
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      path.push(i)
      const pruned = pruneAt(tree.items, item, path, unknown, storedItems[i], copy)
      path.pop()
      if (pruned !== item && out === undefined) out = value.slice(0, i)
      out?.push(pruned)
    }
    return out ?? value
  }
  if (!isJsonObject(value)) return kept(value, copy)
  const storedFields = isJsonObject(stored) ? stored : undefined
  const keys = Object.keys(value)
  let out: Record<string, unknown> | undefined = copy ? {} : undefined
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] ?? ""
    const v = value[key]
    const sub = "values" in tree ? tree.values : Object.hasOwn(tree.fields, key) ? tree.fields[key] : undefined
    // An unknown field is named; a null where the schema does not allow one is dropped, as the API server does
    // before defaulting.
    if (sub === undefined || (v === null && "fields" in tree)) {
      if (sub === undefined) unknown.push(child(path.text(), key))
      out ??= membersBefore(value, keys, i)
      continue
    }
    path.push(key)
    const pruned = pruneAt(sub, v, path, unknown, storedFields !== undefined && Object.hasOwn(storedFields, key) ? storedFields[key] : undefined, copy)
    path.pop()
    if (pruned !== v) out ??= membersBefore(value, keys, i)
    if (out !== undefined) putOwn(out, key, pruned)
  }
  return out ?? value
}

/**
 * Prunes a value by its tree: what a real API server stores, and what it would name under Strict; the
 * pruned value shares nothing with `value` but deeply frozen parts, unless `handedOver` (its maker keeps
 * no hold on it: the simulator's controllers), when it shares whatever it keeps. With
 * `stored` (the stored version an update replaces), parts the value shares with it are not entered again.
 */
export const prune = (tree: FieldTree, value: unknown, stored?: unknown, handedOver = false): Pruned => {
  const unknown: Array<string> = []
  const pruned = pruneAt(tree, value, new WalkPath(""), unknown, stored, !handedOver)
  return { value: pruned, unknown }
}

// The error of a scalar field that does not hold its type, if any.
const leafError = (type: LeafType, value: unknown, path: WalkPath): FieldError | undefined => {
  switch (type) {
    case "any":
      return undefined
    case "string":
      return typeof value === "string" ? undefined : wrongType(path.text(), value, "string")
    case "integer":
      return typeof value === "number" && Number.isInteger(value) ? undefined : wrongType(path.text(), value, "integer")
    case "number":
      return typeof value === "number" ? undefined : wrongType(path.text(), value, "number")
    case "int-or-string":
      return typeof value === "string" || (typeof value === "number" && Number.isInteger(value)) ? undefined : wrongType(path.text(), value, "integer,string")
    case "boolean":
      return typeof value === "boolean" ? undefined : wrongType(path.text(), value, "boolean")
    case "quantity": {
      if (typeof value === "number" && Number.isInteger(value)) return undefined
      if (typeof value !== "string") return wrongType(path.text(), value, "integer,string")
      if (quantityPattern.test(value)) return undefined
      const at = path.text()
      return invalidValue(at, value, `${at} in body should match '${quantityPattern.source}'`)
    }
  }
}

/**
 * Every field whose value does not have the type the tree gives it (open subtrees are not looked into).
 * `passed`: values at the same place in objects that passed this same check (the stored version, what
 * admission was handed), whose deeply frozen parts this value still holds need no second look.
 */
export const typeErrors = (tree: FieldTree, value: unknown, path = "", passed: ReadonlyArray<unknown> = []): ReadonlyArray<FieldError> => {
  const errors: Array<FieldError> = []
  typeErrorsAt(tree, value, new WalkPath(path), errors, passed[0], passed[1])
  return errors
}

// The same place in a value that passed, one level down.
const memberOf = (passed: unknown, key: string): unknown => (isJsonObject(passed) && Object.hasOwn(passed, key) ? passed[key] : undefined)
const itemOf = (passed: unknown, i: number): unknown => (Array.isArray(passed) ? passed[i] : undefined)

// Into one list, depth first in key order, paths spelled out only for an error (see WalkPath). A value
// that is, deeply frozen, the very one a passed value holds in its place passed then and has not changed.
const typeErrorsAt = (tree: FieldTree, value: unknown, path: WalkPath, errors: Array<FieldError>, first: unknown, second: unknown): void => {
  if (value === undefined || tree === "open") return
  if (typeof tree === "string") {
    const error = leafError(tree, value, path)
    if (error !== undefined) errors.push(error)
    return
  }
  if ((value === first || value === second) && isDeeplyFrozen(value)) return
  if ("items" in tree) {
    if (!Array.isArray(value)) {
      errors.push(wrongType(path.text(), value, "array"))
      return
    }
    // An index loop visits every item, as forEach did but for holes, which JSON has none of and which
    // hold undefined, where the check stops at once.
    for (let i = 0; i < value.length; i++) {
      path.push(i)
      typeErrorsAt(tree.items, value[i], path, errors, itemOf(first, i), itemOf(second, i))
      path.pop()
    }
    return
  }
  if (!isJsonObject(value)) {
    errors.push(wrongType(path.text(), value, "object"))
    return
  }
  for (const key of Object.keys(value)) {
    const sub = "values" in tree ? tree.values : Object.hasOwn(tree.fields, key) ? tree.fields[key] : undefined
    if (sub === undefined) continue
    path.push(key)
    typeErrorsAt(sub, value[key], path, errors, memberOf(first, key), memberOf(second, key))
    path.pop()
  }
}
