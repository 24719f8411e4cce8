// Field selectors for custom resources and namespaces: only metadata.name and metadata.namespace,
// with =, == or !=, as the real server supports for CRDs.

/** One field requirement. */
export interface FieldRequirement {
  readonly field: "metadata.name" | "metadata.namespace"
  readonly equal: boolean
  readonly value: string
}

/** A parsed field selector, or why it is refused. */
export type FieldSelectorParse =
  | { readonly ok: true; readonly selector: ReadonlyArray<FieldRequirement> }
  | { readonly ok: false; readonly message: string }

/** Parses a field selector; the empty string selects everything. */
export const parseFieldSelector = (text: string): FieldSelectorParse => {
  if (text.trim() === "") return { ok: true, selector: [] }
  const selector: Array<FieldRequirement> = []
  for (const raw of text.split(",")) {
    const m = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(raw)
    if (m === null) return { ok: false, message: `invalid selector: '${text}'; can't understand '${raw}'` }
    const [, field = "", op = "=", value = ""] = m
    if (field !== "metadata.name" && field !== "metadata.namespace") {
      return { ok: false, message: `"${field}" is not a known field selector: only "metadata.name", "metadata.namespace"` }
    }
    selector.push({ field, equal: op !== "!=", value })
  }
  return { ok: true, selector }
}

/** True when the object's name and namespace satisfy every requirement. */
export const matchesFields = (
  selector: ReadonlyArray<FieldRequirement>,
  fields: { readonly name: string; readonly namespace: string }
): boolean =>
  selector.every((r) => {
    const actual = r.field === "metadata.name" ? fields.name : fields.namespace
    return (actual === r.value) === r.equal
  })
