// A built-in kind's schema read from its protobuf field tables: the tables already name every field of the
// Go types (their JSON names, types, lists and maps), which is what kube-apiserver's structural schema for
// the type holds, so one declaration gives both the wire shape and the fields a strict request may name.
import { type FieldTree, fields, listOf, mapOf } from "../apiserver/validation/FieldTree.ts"
import type { ListType } from "../apiserver/managed/ListTypes.ts"
import { objectMeta } from "./core/CoreFields.ts"

/** meta/v1 LabelSelector (described here: its table is the API server's own, not a kind's). */
export const labelSelector: FieldTree = fields({
  matchLabels: mapOf("string"),
  matchExpressions: listOf(fields({ key: "string", operator: "string", values: listOf("string") }))
})

/** meta/v1 Condition's table, for the kinds whose status holds them. */
export const conditionMessage: Readonly<Record<string, string>> = {
  "meta.v1.Condition": "1:type:string 2:status:string 3:observedGeneration:int64:o 4:lastTransitionTime:time 5:reason:string 6:message:string"
}

// The wire's scalar and special types as schema leaves (time and duration travel as strings in JSON;
// raw extensions and FieldsV1 hold anything).
const leaves: Readonly<Record<string, FieldTree>> = {
  string: "string",
  bytes: "string",
  bool: "boolean",
  int32: "integer",
  int64: "integer",
  uint32: "integer",
  uint64: "integer",
  double: "number",
  float: "number",
  quantity: "quantity",
  time: "string",
  microTime: "string",
  duration: "string",
  intOrString: "int-or-string",
  raw: "open",
  fieldsV1: "open",
  stringList: listOf("string"),
  "meta.v1.ObjectMeta": objectMeta,
  "meta.v1.LabelSelector": labelSelector
}

/**
 * The field tree of `message` as `tables` give it: each entry's field under its JSON name, a repeated one
 * as a list, a map one as a map, an inlined message's fields in its parent. `listTypes` names, by
 * `<message>.<field>`, lists whose items merge by keys other than the ones their field's name implies.
 * A message no table describes (or one met again inside itself) is left open.
 */
export const messageFields = (
  tables: Readonly<Record<string, string>>,
  message: string,
  listTypes: Readonly<Record<string, ListType>> = {}
): FieldTree => {
  const build = (name: string, inside: ReadonlySet<string>): FieldTree => {
    const leaf = leaves[name]
    if (leaf !== undefined) return leaf
    const table = tables[name]
    if (table === undefined || inside.has(name)) return "open"
    const within = new Set([...inside, name])
    const described: Record<string, FieldTree> = {}
    for (const entry of table.split(" ").filter((e) => e !== "")) {
      const [, json = "", type = "", flags = ""] = entry.split(":")
      const tree = build(type, within)
      if (flags.includes("i")) {
        if (typeof tree === "object" && "fields" in tree) Object.assign(described, tree.fields)
        continue
      }
      described[json] = flags.includes("m") ? mapOf(tree) : flags.includes("r") ? listOf(tree, listTypes[`${name}.${json}`]) : tree
    }
    return fields(described)
  }
  return build(message, new Set())
}

/** The field tree of a kind's top-level message: apiVersion and kind (the type meta every object carries), then the message's fields. */
export const kindMessageFields = (
  tables: Readonly<Record<string, string>>,
  message: string,
  listTypes: Readonly<Record<string, ListType>> = {}
): FieldTree => {
  const tree = messageFields(tables, message, listTypes)
  return typeof tree === "object" && "fields" in tree ? fields({ apiVersion: "string", kind: "string", ...tree.fields }) : tree
}
