// The checks every object's metadata goes through, whatever its resource: name format, labels,
// annotations (keys and total size), finalizers and owner references.
import type { Kind } from "../../kinds/Kind.ts"
import type { KindRegistry } from "../../kinds/KindRegistry.ts"
import { type FieldError, invalidValue, requiredValue, wrongType } from "./FieldErrors.ts"
import { isJsonObject } from "../store/JsonValue.ts"
import { annotationsSize, labelValueProblems, MAX_ANNOTATIONS_BYTES, qualifiedNameProblems } from "@dispatch/kube"

const checkName = (resource: Kind, name: unknown): ReadonlyArray<FieldError> => {
  if (typeof name !== "string" || name === "") return [requiredValue("metadata.name", "name or generateName is required")]
  const problems = resource.strategy.nameProblems(name)
  return problems.map((p) => invalidValue("metadata.name", name, p))
}

const checkStringMap = (
  field: string,
  value: unknown,
  checkValue: ((v: string) => ReadonlyArray<string>) | undefined
): ReadonlyArray<FieldError> => {
  if (value === undefined || value === null) return []
  if (!isJsonObject(value)) return [wrongType(field, value, "object")]
  const errors: Array<FieldError> = []
  for (const key of Object.keys(value)) {
    const v = value[key]
    for (const p of qualifiedNameProblems(key)) errors.push(invalidValue(field, key, p))
    if (typeof v !== "string") errors.push(wrongType(`${field}.${key}`, v, "string"))
    else if (checkValue !== undefined) for (const p of checkValue(v)) errors.push(invalidValue(field, v, p))
  }
  return errors
}

const checkAnnotationSize = (value: unknown): ReadonlyArray<FieldError> => {
  if (!isJsonObject(value)) return []
  return annotationsSize(value) > MAX_ANNOTATIONS_BYTES
    ? [{ reason: "FieldValueTooLong", message: `Too long: must have at most ${MAX_ANNOTATIONS_BYTES} bytes`, field: "metadata.annotations" }]
    : []
}

const checkFinalizers = (value: unknown): ReadonlyArray<FieldError> => {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) return [wrongType("metadata.finalizers", value, "array")]
  return value.flatMap((f, i) =>
    typeof f === "string"
      ? qualifiedNameProblems(f).map((p) => invalidValue(`metadata.finalizers[${i}]`, f, p))
      : [wrongType(`metadata.finalizers[${i}]`, f, "string")]
  )
}

const requiredRefFields = ["apiVersion", "kind", "name", "uid"] as const

const checkOwnerReferences = (kinds: KindRegistry, resource: Kind, value: unknown): ReadonlyArray<FieldError> => {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) return [wrongType("metadata.ownerReferences", value, "array")]
  const errors: Array<FieldError> = []
  const controllers: Array<string> = []
  for (const ref of value) {
    if (!isJsonObject(ref)) {
      errors.push(wrongType("metadata.ownerReferences", ref, "object"))
      continue
    }
    for (const key of requiredRefFields) {
      const v = ref[key]
      if (typeof v !== "string" || v === "") {
        const noun = key === "apiVersion" ? "version" : key
        errors.push(invalidValue(`metadata.ownerReferences.${key}`, v ?? "", `${noun} must not be empty`))
      }
    }
    if (ref["controller"] === true) controllers.push(String(ref["name"]))
    const owner = kinds.byKind(String(ref["apiVersion"] ?? ""), String(ref["kind"] ?? ""))
    if (!resource.namespaced && owner?.namespaced === true) {
      errors.push(invalidValue("metadata.ownerReferences", ref["name"], "a cluster-scoped object cannot have a namespaced owner"))
    }
  }
  if (controllers.length > 1) {
    errors.push(
      invalidValue(
        "metadata.ownerReferences",
        value,
        `Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(" and ")}`
      )
    )
  }
  return errors
}

/** Every problem with an object's metadata (name already final: generateName resolved). */
export const checkObjectMeta = (kinds: KindRegistry, resource: Kind, metadata: Record<string, unknown>): ReadonlyArray<FieldError> => [
  ...checkName(resource, metadata["name"]),
  ...checkStringMap("metadata.labels", metadata["labels"], labelValueProblems),
  ...checkStringMap("metadata.annotations", metadata["annotations"], undefined),
  ...checkAnnotationSize(metadata["annotations"]),
  ...checkFinalizers(metadata["finalizers"]),
  ...checkOwnerReferences(kinds, resource, metadata["ownerReferences"])
]
