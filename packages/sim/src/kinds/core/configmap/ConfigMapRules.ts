// A core/v1 ConfigMap's shape and rules, as the API server validates one: keys of a config map's
// characters, no key both in data and binaryData, base64 binary values, at most 1 MiB in all, and once
// `immutable` is set, neither its data nor the flag may change.
import { type FieldError, duplicate, forbidden, invalidValue, tooLong } from "../../../apiserver/validation/FieldErrors.ts"
import { fields, mapOf, type FieldTree } from "../../../apiserver/validation/FieldTree.ts"
import { isJsonObject, jsonEqual } from "../../../apiserver/store/JsonValue.ts"
import { objectMeta } from "../CoreFields.ts"

/** The fields of a ConfigMap. */
export const configMapFields: FieldTree = fields({
  apiVersion: "string",
  kind: "string",
  metadata: objectMeta,
  data: mapOf("string"),
  binaryData: mapOf("string"),
  immutable: "boolean"
})

/** The most a ConfigMap's data and binaryData may hold together (core/v1's MaxSecretSize). */
export const maxConfigMapBytes = 1024 * 1024

const keyPattern = /^[-._a-zA-Z0-9]+$/

/** Why `key` cannot name a ConfigMap entry (IsConfigMapKey), or none. */
export const configMapKeyProblems = (key: string): ReadonlyArray<string> => [
  ...(key.length > 253 ? ["must be no more than 253 characters"] : []),
  ...(keyPattern.test(key) ? [] : ["a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"]),
  ...(key === "." ? ["must not be '.'"] : key === ".." ? ["must not be '..'"] : key.startsWith("..") ? ["must not start with '..'"] : [])
]

const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

const entries = (value: unknown): ReadonlyArray<readonly [string, unknown]> => (isJsonObject(value) ? Object.entries(value) : [])

/** Every problem with a ConfigMap about to be stored (`old` on update). */
export const checkConfigMap = (object: Record<string, unknown>, old: Record<string, unknown> | undefined): ReadonlyArray<FieldError> => {
  const data = entries(object["data"])
  const binary = entries(object["binaryData"])
  const dataKeys = new Set(data.map(([key]) => key))
  let bytes = 0
  const keyErrors = (part: string) => ([key]: readonly [string, unknown]) => configMapKeyProblems(key).map((p) => invalidValue(`${part}[${key}]`, key, p))
  const errors: Array<FieldError> = [...data.flatMap(keyErrors("data")), ...binary.flatMap(keyErrors("binaryData"))]
  for (const [key, value] of data) bytes += key.length + (typeof value === "string" ? Buffer.byteLength(value) : 0)
  for (const [key, value] of binary) {
    if (dataKeys.has(key)) errors.push(duplicate(`binaryData[${key}]`, key))
    if (typeof value === "string" && !base64.test(value)) errors.push(invalidValue(`binaryData[${key}]`, value, "illegal base64 data"))
    bytes += key.length + (typeof value === "string" ? Math.floor((value.length * 3) / 4) : 0)
  }
  if (bytes > maxConfigMapBytes) errors.push(tooLong("", maxConfigMapBytes))
  if (old !== undefined && old["immutable"] === true) {
    if (object["immutable"] !== true) errors.push(forbidden("immutable", "field is immutable when `immutable` is set"))
    if (!jsonEqual(object["data"], old["data"])) errors.push(forbidden("data", "field is immutable when `immutable` is set"))
    if (!jsonEqual(object["binaryData"], old["binaryData"])) errors.push(forbidden("binaryData", "field is immutable when `immutable` is set"))
  }
  return errors
}
