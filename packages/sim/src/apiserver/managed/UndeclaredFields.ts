// The fields an apply configuration names that its kind's type does not declare, as the API server's
// structured-merge-diff conversion to a typed value reports them for a built-in kind: a path per object
// holding one (the first such field met in it: the conversion stops looking in that object there), with
// keyed list items named by their keys (`.spec.ports[port=80,protocol="TCP"].nam`) and other items by index.
import type { FieldTree } from "../validation/FieldTree.ts"
import { isJsonObject } from "../store/JsonValue.ts"
import { listTypeOf } from "./ListTypes.ts"

// A keyed list item's path element: its key fields in key order, strings quoted.
const keyText = (item: Record<string, unknown>, keys: ReadonlyArray<string>, defaults: Readonly<Record<string, unknown>> = {}): string | undefined => {
  const parts: Array<string> = []
  for (const key of [...keys].sort()) {
    const value = item[key] ?? defaults[key]
    if (value === undefined) continue
    if (value !== null && typeof value === "object") return undefined
    parts.push(`${key}=${JSON.stringify(value)}`)
  }
  return parts.length === 0 ? undefined : `[${parts.join(",")}]`
}

const walk = (tree: FieldTree, value: unknown, path: string, field: string, out: Array<string>): void => {
  if (typeof tree === "string") return
  if ("items" in tree) {
    if (!Array.isArray(value)) return
    const listType = listTypeOf(field, tree)
    value.forEach((item, i) => {
      const keyed = listType.type === "map" && isJsonObject(item) ? keyText(item, listType.keys, listType.defaults) : undefined
      walk(tree.items, item, `${path}${keyed ?? `[${i}]`}`, field, out)
    })
    return
  }
  if (!isJsonObject(value)) return
  for (const key of Object.keys(value)) {
    const sub = "values" in tree ? tree.values : Object.hasOwn(tree.fields, key) ? tree.fields[key] : undefined
    if (sub === undefined) {
      out.push(`${path}.${key}`)
      return
    }
    walk(sub, value[key], `${path}.${key}`, key, out)
  }
}

/** The undeclared fields of a configuration, as `.a.b` paths, in the order met. */
export const undeclaredFields = (tree: FieldTree, value: unknown): ReadonlyArray<string> => {
  const out: Array<string> = []
  walk(tree, value, "", "", out)
  return out
}

/** The conversion's message for them: one error as it is, several listed under `errors:`. */
export const undeclaredMessage = (paths: ReadonlyArray<string>): string => {
  const lines = paths.map((p) => `${p}: field not declared in schema`)
  return lines.length === 1 ? (lines[0] ?? "") : ["errors:", ...lines.map((l) => `  ${l}`)].join("\n")
}
