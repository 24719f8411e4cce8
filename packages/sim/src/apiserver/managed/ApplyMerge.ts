// The two changes a server-side apply makes to the live object: its configuration merged in (objects
// field by field, keyed lists item by item, sets by value, anything else replaced), and the fields the
// manager applied before and no longer sets removed, unless another manager owns them too.
import type { FieldTree } from "../validation/FieldTree.ts"
import { isJsonObject } from "../store/JsonValue.ts"
import { type FieldPath, type FieldSet, hasPath, reachesPath } from "./FieldSet.ts"
import { childTree, itemElements, itemTree } from "./ObjectFields.ts"
import { listTypeOf } from "./ListTypes.ts"

/** The live value with the configuration merged in; parts the configuration does not reach stay shared. */
export const mergeApplied = (live: unknown, config: unknown, tree: FieldTree, field: string): unknown => {
  if (live === undefined) return config
  if (Array.isArray(live) && Array.isArray(config)) {
    const listType = listTypeOf(field, tree)
    const liveElements = itemElements(live, listType)
    const configElements = itemElements(config, listType)
    if (liveElements === undefined || configElements === undefined) return config
    const configured = new Map(configElements.map((e, i) => [e, config[i]] as const))
    const items = itemTree(tree)
    const merged = live.map((item, i) => {
      const element = liveElements[i] ?? ""
      return configured.has(element) ? mergeApplied(item, configured.get(element), items, field) : item
    })
    const seen = new Set(liveElements)
    configElements.forEach((element, i) => {
      if (!seen.has(element)) merged.push(config[i])
    })
    return merged
  }
  if (isJsonObject(live) && isJsonObject(config)) {
    const out: Record<string, unknown> = { ...live }
    for (const key of Object.keys(config)) out[key] = mergeApplied(live[key], config[key], childTree(tree, key), key)
    return out
  }
  return config
}

const matches = (item: unknown, element: string, field: string, tree: FieldTree): boolean => {
  const elements = itemElements([item], listTypeOf(field, tree))
  return elements?.[0] === element
}

// Removes `rest` below `value` (at `at`); a struct or list the removal empties goes too, unless `keep`
// owns it. Unchanged values come back as they are.
const removeAt = (value: unknown, rest: FieldPath, at: FieldPath, tree: FieldTree, field: string, keep: FieldSet): unknown => {
  const [element, ...deeper] = rest
  if (element === undefined) return undefined
  const here = [...at, element]
  if (Array.isArray(value)) {
    const index = element.startsWith("i:") ? Number(element.slice(2)) : value.findIndex((item) => matches(item, element, field, tree))
    if (!(index >= 0 && index < value.length)) return value
    const next = deeper.length === 0 ? undefined : removeAt(value[index], deeper, here, itemTree(tree), field, keep)
    if (next === value[index]) return value
    const out = [...value]
    if (next === undefined) out.splice(index, 1)
    else out[index] = next
    return out.length === 0 && !hasPath(keep, at) ? undefined : out
  }
  if (!isJsonObject(value) || !element.startsWith("f:")) return value
  const key = element.slice(2)
  if (!Object.hasOwn(value, key)) return value
  const next = deeper.length === 0 ? undefined : removeAt(value[key], deeper, here, childTree(tree, key), key, keep)
  if (next === value[key]) return value
  const { [key]: _removed, ...out } = value
  if (next !== undefined) out[key] = next
  return Object.keys(out).length === 0 && at.length > 0 && !hasPath(keep, at) ? undefined : out
}

/**
 * The object without the given paths, each removed only when `keep` (what the managers still own) does
 * not reach it: a field another manager owns, or owns something below, stays.
 */
export const removePaths = (object: Record<string, unknown>, paths: ReadonlyArray<FieldPath>, tree: FieldTree, keep: FieldSet): Record<string, unknown> => {
  let out = object
  for (const path of paths) {
    if (reachesPath(keep, path)) continue
    const next = removeAt(out, path, [], tree, "", keep)
    out = isJsonObject(next) ? next : {}
  }
  return out
}
