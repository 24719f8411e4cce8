// Strategic merge patch, as the API server applies one to a built-in kind (kubectl's client-side apply,
// `patch`, `scale`, `set image` send them): objects merge key by key and null removes a key, as in a
// merge patch; a keyed list (containers by name, ports by containerPort and protocol ...) merges item by
// item, a set by value, any other list is replaced. The directives kubectl writes are followed: `$patch:
// delete` (an item or an object goes), `$patch: replace` (an object or list is replaced whole),
// `$retainKeys` (the object keeps only those keys), `$deleteFromPrimitiveList/<field>` and
// `$setElementOrder/<field>` (the order of a merged list's items).
import type { FieldTree } from "../validation/FieldTree.ts"
import { isJsonObject, setOwn } from "../store/JsonValue.ts"
import { childTree, itemElements, itemTree, keyElement } from "../managed/ObjectFields.ts"
import { type ListType, listTypeOf } from "../managed/ListTypes.ts"

type Json = Record<string, unknown>

const setElementOrder = "$setElementOrder/"
const deleteFromPrimitiveList = "$deleteFromPrimitiveList/"

// An item without its directive.
const withoutDirective = (item: Json): Json => {
  const { $patch: _directive, ...rest } = item
  return rest
}

const keyOf = (item: unknown, listType: ListType): string | undefined =>
  listType.type === "map" ? keyElement(isJsonObject(item) ? withoutDirective(item) : item, listType.keys, listType.defaults) : JSON.stringify(item)

const mergeList = (live: unknown, patch: ReadonlyArray<unknown>, tree: FieldTree, field: string): unknown => {
  const listType = listTypeOf(field, tree)
  if (listType.type === "atomic") return patch
  if (patch.some((item) => isJsonObject(item) && item["$patch"] === "replace")) return patch.filter((item) => !(isJsonObject(item) && item["$patch"] === "replace"))
  const current = Array.isArray(live) ? [...live] : []
  // Live items that cannot be keyed make the list one value: the patch replaces it.
  if (itemElements(current, listType) === undefined && current.length > 0) return patch
  const items = itemTree(tree)
  for (const item of patch) {
    const key = keyOf(item, listType)
    const at = key === undefined ? -1 : current.findIndex((c) => keyOf(c, listType) === key)
    if (isJsonObject(item) && item["$patch"] === "delete") {
      if (at >= 0) current.splice(at, 1)
    } else if (at < 0) current.push(isJsonObject(item) ? withoutDirective(item) : item)
    else if (listType.type === "map") current[at] = strategicMerge(current[at], item, items, field)
  }
  return current
}

// The list's items in the order the directive gives, those it does not name after them as they were.
const ordered = (list: unknown, order: unknown, tree: FieldTree, field: string): unknown => {
  if (!Array.isArray(list) || !Array.isArray(order)) return list
  const listType = listTypeOf(field, tree)
  const rank = new Map(order.map((item, i) => [keyOf(item, listType), i] as const))
  const position = (item: unknown): number => rank.get(keyOf(item, listType)) ?? order.length
  return list.map((item, i) => ({ item, i })).sort((a, b) => position(a.item) - position(b.item) || a.i - b.i).map(({ item }) => item)
}

const mergeValue = (live: unknown, patch: unknown, tree: FieldTree, field: string): unknown => {
  if (Array.isArray(patch)) return mergeList(live, patch, tree, field)
  if (isJsonObject(patch)) return patch["$patch"] === "delete" ? undefined : strategicMerge(live, patch, tree, field)
  return patch
}

/** Applies a strategic merge patch to a value of the schema `tree` (held under `field`), returning the new value. */
export const strategicMerge = (target: unknown, patch: unknown, tree: FieldTree, field = ""): unknown => {
  if (!isJsonObject(patch)) return patch
  if (patch["$patch"] === "replace") {
    const out: Json = {}
    for (const [key, value] of Object.entries(patch)) if (!key.startsWith("$")) setOwn(out, key, value)
    return out
  }
  const out: Json = isJsonObject(target) ? { ...target } : {}
  const retain = patch["$retainKeys"]
  if (Array.isArray(retain)) for (const key of Object.keys(out)) if (!retain.includes(key)) delete out[key]
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith("$")) continue
    if (value === null) delete out[key]
    else {
      const merged = mergeValue(Object.hasOwn(out, key) ? out[key] : undefined, value, childTree(tree, key), key)
      if (merged === undefined) delete out[key]
      else setOwn(out, key, merged)
    }
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith(deleteFromPrimitiveList)) {
      const name = key.slice(deleteFromPrimitiveList.length)
      const list = out[name]
      if (Array.isArray(list) && Array.isArray(value)) setOwn(out, name, list.filter((v) => !value.includes(v)))
    } else if (key.startsWith(setElementOrder)) {
      const name = key.slice(setElementOrder.length)
      if (Object.hasOwn(out, name)) setOwn(out, name, ordered(out[name], value, childTree(tree, name), name))
    }
  }
  return out
}
