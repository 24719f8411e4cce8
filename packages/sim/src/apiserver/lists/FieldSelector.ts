// Field selectors: metadata.name and metadata.namespace for every resource (all a CRD allows), plus
// the fields a built-in kind adds (its selectableFields), with =, == or !=.

/** One field requirement. */
export interface FieldRequirement {
  readonly field: string
  readonly equal: boolean
  readonly value: string
}

/** A parsed field selector, or why it is refused. */
export type FieldSelectorParse =
  | { readonly ok: true; readonly selector: ReadonlyArray<FieldRequirement> }
  | { readonly ok: false; readonly message: string }

/** Parses a field selector naming metadata.name, metadata.namespace or one of `extra`; "" selects everything. */
export const parseFieldSelector = (text: string, extra: ReadonlyArray<string> = []): FieldSelectorParse => {
  if (text.trim() === "") return { ok: true, selector: [] }
  const selector: Array<FieldRequirement> = []
  for (const raw of text.split(",")) {
    const m = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(raw)
    if (m === null) return { ok: false, message: `invalid selector: '${text}'; can't understand '${raw}'` }
    const [, field = "", op = "=", value = ""] = m
    if (field !== "metadata.name" && field !== "metadata.namespace" && !extra.includes(field)) {
      const known = ["metadata.name", "metadata.namespace", ...extra].map((f) => `"${f}"`).join(", ")
      return { ok: false, message: `"${field}" is not a known field selector: only ${known}` }
    }
    selector.push({ field, equal: op !== "!=", value })
  }
  return { ok: true, selector }
}

/** True when the object's name, namespace and other selected fields (read by `other`) satisfy every requirement. */
export const matchesFields = (
  selector: ReadonlyArray<FieldRequirement>,
  fields: { readonly name: string; readonly namespace: string },
  other: (field: string) => string = () => ""
): boolean =>
  selector.every((r) => {
    const actual = r.field === "metadata.name" ? fields.name : r.field === "metadata.namespace" ? fields.namespace : other(r.field)
    return (actual === r.value) === r.equal
  })
