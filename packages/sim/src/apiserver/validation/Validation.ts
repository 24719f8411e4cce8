// All the schema-level checks for one write, by resource: metadata rules for every object, the types
// of the fields its kind's schema defines, then the kind's own rules. Admission webhooks are run elsewhere.
import type { FieldError } from "./FieldErrors.ts"
import { typeErrors } from "./FieldTree.ts"
import { isJsonObject, keepsFrozenPart } from "../store/JsonValue.ts"
import { checkObjectMeta } from "./ObjectMetaRules.ts"
import type { Kind } from "../../kinds/Kind.ts"
import type { KindRegistry } from "../../kinds/KindRegistry.ts"

// A part that is, frozen, the very one an object that passed these checks holds (`old`, as stored, or
// `checked`, what admission was handed) passed them then and cannot have changed since.
const passed = (object: Record<string, unknown>, part: string, old: Record<string, unknown> | undefined, checked: Record<string, unknown> | undefined): boolean =>
  keepsFrozenPart(object, old, part) || keepsFrozenPart(object, checked, part)

// The parts every kind carries, checked elsewhere: apiVersion and kind by the verbs, metadata by its rules.
const typeMetaParts: ReadonlySet<string> = new Set(["apiVersion", "kind", "metadata"])

// Metadata has its own rules (ObjectMetaRules); the schema's types are checked on the rest (spec and
// status, or a ConfigMap's data). A part an
// update leaves as the stored object has it (the spec under a status update) is not checked again, nor
// is any frozen value below that an object that passed holds in the same place (what a webhook kept).
const fieldTypeErrors = (
  resource: Kind,
  object: Record<string, unknown>,
  old: Record<string, unknown> | undefined,
  checked: Record<string, unknown> | undefined
): ReadonlyArray<FieldError> => {
  const tree = resource.fields
  if (typeof tree === "string" || !("fields" in tree)) return []
  return Object.keys(tree.fields).flatMap((part) => {
    const sub = tree.fields[part]
    if (sub === undefined || typeMetaParts.has(part) || passed(object, part, old, checked)) return []
    return typeErrors(sub, object[part], part, [old?.[part], checked?.[part]])
  })
}

// A rule and the type check may report the same error for one field: it is listed once.
const distinct = (errors: ReadonlyArray<FieldError>): ReadonlyArray<FieldError> => {
  const seen = new Set<string>()
  return errors.filter((e) => {
    const key = `${e.field}\u0000${e.reason}\u0000${e.message}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/**
 * Every problem with an object about to be stored (`old` on update). `checked`: an object that passed
 * these same checks with no problem (what admission was handed, when a webhook changed it), whose frozen
 * parts this one kept need no second look; the resource's own rules, which look across parts, still run.
 */
export const validate = (
  kinds: KindRegistry,
  resource: Kind,
  object: Record<string, unknown>,
  old: Record<string, unknown> | undefined,
  checked?: Record<string, unknown>
): ReadonlyArray<FieldError> => {
  const metadata = isJsonObject(object["metadata"]) ? object["metadata"] : {}
  // Metadata kept as stored (a status update's) passed these same checks when it was stored.
  const kept = passed(object, "metadata", old, checked)
  const errors = [...(kept ? [] : checkObjectMeta(kinds, resource, metadata)), ...fieldTypeErrors(resource, object, old, checked), ...resource.strategy.validate(object, old)]
  return errors.length === 0 ? errors : distinct(errors)
}
