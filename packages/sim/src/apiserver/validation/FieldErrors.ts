// Field errors as the API server reports them in an Invalid Status: one cause per problem, each with
// the reason, the message and the field path.

/** One problem with one field. */
export interface FieldError {
  readonly reason: string
  readonly message: string
  readonly field: string
}

// Renders a value the way the API server quotes it in messages.
const show = (value: unknown): string => {
  if (typeof value === "string") return JSON.stringify(value)
  if (typeof value === "number" || typeof value === "boolean") return String(value)
  if (value === null || value === undefined) return "null"
  return Array.isArray(value) ? `[]interface {}{...}` : `"object"`
}

/** A value that breaks a rule. */
export const invalidValue = (field: string, value: unknown, detail: string): FieldError => ({
  reason: "FieldValueInvalid",
  message: `Invalid value: ${show(value)}: ${detail}`,
  field
})

/** A value that must be given. */
export const requiredValue = (field: string, detail?: string): FieldError => ({
  reason: "FieldValueRequired",
  message: detail === undefined ? "Required value" : `Required value: ${detail}`,
  field
})

/** A string longer than allowed. */
export const tooLong = (field: string, max: number): FieldError => ({
  reason: "FieldValueTooLong",
  message: `Too long: may not be more than ${max} bytes`,
  field
})

/** A string shorter than allowed. */
export const tooShort = (field: string, value: string, min: number): FieldError => ({
  reason: "FieldValueInvalid",
  message: `Invalid value: ${show(value)}: should be at least ${min} chars long`,
  field
})

/** A list with more items than allowed. */
export const tooMany = (field: string, actual: number, max: number): FieldError => ({
  reason: "FieldValueTooMany",
  message: `Too many: ${actual}: must have at most ${max} items`,
  field
})

/** A value outside an enumeration. */
export const notSupported = (field: string, value: unknown, supported: ReadonlyArray<string>): FieldError => ({
  reason: "FieldValueNotSupported",
  message: `Unsupported value: ${show(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(", ")}`,
  field
})

/** A repeated key in a keyed list. */
export const duplicate = (field: string, value: unknown): FieldError => ({
  reason: "FieldValueDuplicate",
  message: `Duplicate value: ${show(value)}`,
  field
})

/** A change or value that is not allowed here. */
export const forbidden = (field: string, detail: string): FieldError => ({
  reason: "FieldValueForbidden",
  message: `Forbidden: ${detail}`,
  field
})

/** A value of the wrong JSON type. */
export const wrongType = (field: string, value: unknown, expected: string): FieldError => ({
  reason: "FieldValueTypeInvalid",
  message: `Invalid value: ${show(value)}: ${field} in body must be of type ${expected}`,
  field
})

/** The `field: message` line the Status message lists for each error. */
export const errorLine = (e: FieldError): string => `${e.field}: ${e.message}`
