// Label selectors as kubectl prints them in a SELECTOR column: `key=value` pairs in key order, then
// set-based expressions; `<none>` for none.
import { isJsonObject } from "../../apiserver/store/JsonValue.ts"

/** A map of labels (a Service's selector) as `a=1,b=2`, keys sorted; `<none>` when empty. */
export const labelMapText = (value: unknown): string => {
  const labels = isJsonObject(value) ? value : {}
  const keys = Object.keys(labels).sort()
  return keys.length === 0 ? "<none>" : keys.map((k) => `${k}=${String(labels[k])}`).join(",")
}

const expressionText = (expression: unknown): string => {
  const e = isJsonObject(expression) ? expression : {}
  const key = String(e["key"] ?? "")
  const values = Array.isArray(e["values"]) ? e["values"].map(String).join(",") : ""
  switch (e["operator"]) {
    case "In":
      return `${key} in (${values})`
    case "NotIn":
      return `${key} notin (${values})`
    case "Exists":
      return key
    case "DoesNotExist":
      return `!${key}`
    default:
      return `${key} ${String(e["operator"] ?? "")} (${values})`
  }
}

/** A meta/v1 LabelSelector as `a=1,key in (x,y)`; `<none>` when it has no requirement. */
export const labelSelectorText = (value: unknown): string => {
  const selector = isJsonObject(value) ? value : {}
  const matchLabels = labelMapText(selector["matchLabels"])
  const expressions = Array.isArray(selector["matchExpressions"]) ? selector["matchExpressions"].map(expressionText) : []
  const parts = [...(matchLabels === "<none>" ? [] : [matchLabels]), ...expressions]
  return parts.length === 0 ? "<none>" : parts.join(",")
}
