// Small OpenAPI-style checks (type, length, item count, minimum) shared by the per-resource rules, each
// returning the field errors the API server's schema validation would report.
import { type FieldError, invalidValue, tooLong, tooMany, tooShort, wrongType } from "./FieldErrors.ts"

/** A string of at most `max` (and at least `min`) characters, when present. */
export const checkString = (field: string, value: unknown, max: number, min = 0): ReadonlyArray<FieldError> => {
  if (value === undefined) return []
  if (typeof value !== "string") return [wrongType(field, value, "string")]
  if (value.length > max) return [tooLong(field, max)]
  if (value.length < min) return [tooShort(field, value, min)]
  return []
}

/** An array of at most `max` items, when present. */
export const checkArray = (field: string, value: unknown, max: number, min = 0): ReadonlyArray<FieldError> => {
  if (value === undefined) return []
  if (!Array.isArray(value)) return [wrongType(field, value, "array")]
  if (value.length > max) return [tooMany(field, value.length, max)]
  if (value.length < min) return [invalidValue(field, value.length, `${field} in body should have at least ${min} items`)]
  return []
}

/** An integer of at least `min`, when present. */
export const checkInteger = (field: string, value: unknown, min: number): ReadonlyArray<FieldError> => {
  if (value === undefined) return []
  if (typeof value !== "number" || !Number.isInteger(value)) return [wrongType(field, value, "integer")]
  return value < min ? [invalidValue(field, value, `${field} in body should be greater than or equal to ${min}`)] : []
}

/** A boolean, when present. */
export const checkBoolean = (field: string, value: unknown): ReadonlyArray<FieldError> =>
  value === undefined || typeof value === "boolean" ? [] : [wrongType(field, value, "boolean")]
