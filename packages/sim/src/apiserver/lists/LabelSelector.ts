// Label selectors in their string form, as list and watch take them: `a=b`, `a==b`, `a!=b`,
// `a in (x,y)`, `a notin (x,y)`, `a` (exists) and `!a` (does not exist), joined by commas.
import { isLabelValue, isQualifiedName } from "@dispatch/kube"

/** One requirement of a label selector. */
export type LabelRequirement =
  | { readonly op: "in" | "notin"; readonly key: string; readonly values: ReadonlyArray<string> }
  | { readonly op: "exists" | "doesNotExist"; readonly key: string }

/** A parsed selector: every requirement must hold. */
export type LabelSelector = ReadonlyArray<LabelRequirement>

/** A parsed selector, or why the text is not one. */
export type LabelSelectorParse = { readonly ok: true; readonly selector: LabelSelector } | { readonly ok: false; readonly message: string }


// Splits on commas that are not inside parentheses.
const splitTerms = (text: string): Array<string> => {
  const terms: Array<string> = []
  let depth = 0
  let current = ""
  for (const ch of text) {
    if (ch === "(") depth++
    if (ch === ")") depth--
    if (ch === "," && depth === 0) {
      terms.push(current)
      current = ""
    } else current += ch
  }
  terms.push(current)
  return terms
}

const parseTerm = (raw: string): LabelRequirement | string => {
  const term = raw.trim()
  const setMatch = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(term)
  const checkKey = (key: string): string | undefined =>
    isQualifiedName(key) ? undefined : `invalid label key "${key}"`
  const checkValue = (value: string): string | undefined =>
    isLabelValue(value) ? undefined : `invalid label value: "${value}"`
  if (setMatch !== null) {
    const [, key = "", op = "in", list = ""] = setMatch
    const values = list.split(",").map((v) => v.trim())
    const problem = checkKey(key) ?? values.map(checkValue).find((m) => m !== undefined)
    if (problem !== undefined) return problem
    return { op: op === "in" ? "in" : "notin", key, values }
  }
  const cmp = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(term)
  if (cmp !== null) {
    const [, key = "", op = "=", value = ""] = cmp
    const problem = checkKey(key) ?? checkValue(value.trim())
    if (problem !== undefined) return problem
    return { op: op === "!=" ? "notin" : "in", key, values: [value.trim()] }
  }
  if (term.startsWith("!")) {
    const key = term.slice(1).trim()
    return checkKey(key) ?? { op: "doesNotExist", key }
  }
  if (term === "") return "found '', expected: identifier"
  return checkKey(term) ?? { op: "exists", key: term }
}

/** Parses a label selector; the empty string selects everything. */
export const parseLabelSelector = (text: string): LabelSelectorParse => {
  if (text.trim() === "") return { ok: true, selector: [] }
  const requirements: Array<LabelRequirement> = []
  for (const raw of splitTerms(text)) {
    const parsed = parseTerm(raw)
    if (typeof parsed === "string") return { ok: false, message: `unable to parse requirement: ${parsed}` }
    requirements.push(parsed)
  }
  return { ok: true, selector: requirements }
}

/** True when the labels satisfy every requirement. */
export const matchesLabels = (selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean =>
  selector.every((r) => {
    const has = Object.hasOwn(labels, r.key)
    const value = labels[r.key]
    switch (r.op) {
      case "exists":
        return has
      case "doesNotExist":
        return !has
      case "in":
        return has && value !== undefined && r.values.includes(value)
      case "notin":
        return !has || value === undefined || !r.values.includes(value)
    }
  })

const operators: Readonly<Record<string, LabelRequirement["op"]>> = { In: "in", NotIn: "notin", Exists: "exists", DoesNotExist: "doesNotExist" }

/**
 * A meta/v1 LabelSelector object (matchLabels and matchExpressions) as requirements, or undefined when
 * an expression's operator is not one of In, NotIn, Exists and DoesNotExist. The empty selector selects everything.
 */
export const labelSelectorOf = (value: unknown): LabelSelector | undefined => {
  const selector = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
  const matchLabels = typeof selector["matchLabels"] === "object" && selector["matchLabels"] !== null ? Object.entries(selector["matchLabels"] as Record<string, unknown>) : []
  const requirements: Array<LabelRequirement> = matchLabels.map(([key, v]) => ({ op: "in", key, values: [String(v)] }))
  for (const e of Array.isArray(selector["matchExpressions"]) ? (selector["matchExpressions"] as ReadonlyArray<Record<string, unknown> | null>) : []) {
    const op = operators[String(e?.["operator"] ?? "")]
    if (op === undefined) return undefined
    const key = String(e?.["key"] ?? "")
    const values = Array.isArray(e?.["values"]) ? (e["values"] as ReadonlyArray<unknown>).map(String) : []
    requirements.push(op === "in" || op === "notin" ? { op, key, values } : { op, key })
  }
  return requirements
}
