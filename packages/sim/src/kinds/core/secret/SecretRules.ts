// A core/v1 Secret's schema, defaults and rules, as the API server applies them: `stringData` is folded
// into `data` (base64, its keys winning) and never stored; the type is Opaque unless given; keys are config
// keys; the values are base64 and at most 1 MiB in all; a TLS secret holds tls.crt and tls.key, a
// basic-auth one a username or password; and once `immutable` is set, neither the data nor the flag changes.
import { type FieldError, forbidden, invalidValue, requiredValue, tooLong } from "../../../apiserver/validation/FieldErrors.ts"
import type { FieldTree } from "../../../apiserver/validation/FieldTree.ts"
import { isJsonObject, jsonEqual, setOwn } from "../../../apiserver/store/JsonValue.ts"
import { kindMessageFields } from "../../MessageFields.ts"
import { configMapKeyProblems, maxConfigMapBytes } from "../configmap/ConfigMapRules.ts"
import { secretMessages } from "./SecretMessages.ts"

type Json = Record<string, unknown>

const object = (value: unknown): Json => (isJsonObject(value) ? value : {})

/** The fields of a Secret. */
export const secretFields: FieldTree = kindMessageFields(secretMessages, "core.v1.Secret")

/** A Secret as the API server keeps it: stringData folded into data as base64, the type Opaque unless given. */
export const secretDefaults = (secret: Json): Json => {
  const { stringData, ...rest } = secret
  const folded: Json = { ...rest }
  if (isJsonObject(stringData)) {
    const data: Json = { ...object(rest["data"]) }
    // Own properties whatever the key (a key may be `__proto__`).
    for (const [key, value] of Object.entries(stringData)) setOwn(data, key, Buffer.from(typeof value === "string" ? value : "", "utf8").toString("base64"))
    folded["data"] = data
  }
  return folded["type"] === undefined || folded["type"] === "" ? { ...folded, type: "Opaque" } : folded
}

const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

// The keys a secret of a type must hold, by type.
const requiredKeys: Readonly<Record<string, ReadonlyArray<string>>> = {
  "kubernetes.io/tls": ["tls.crt", "tls.key"],
  "kubernetes.io/dockerconfigjson": [".dockerconfigjson"],
  "kubernetes.io/dockercfg": [".dockercfg"],
  "kubernetes.io/ssh-auth": ["ssh-privatekey"]
}

/** Every problem beyond the schema's types with a Secret about to be stored (`old` on update). */
export const checkSecret = (secret: Json, old: Json | undefined): ReadonlyArray<FieldError> => {
  const data = object(secret["data"])
  const type = typeof secret["type"] === "string" ? secret["type"] : "Opaque"
  const errors: Array<FieldError> = []
  let bytes = 0
  for (const [key, value] of Object.entries(data)) {
    for (const p of configMapKeyProblems(key)) errors.push(invalidValue(`data[${key}]`, key, p))
    if (typeof value === "string" && !base64.test(value)) errors.push(invalidValue(`data[${key}]`, "<secret contents redacted>", "illegal base64 data"))
    bytes += typeof value === "string" ? Math.floor((value.length * 3) / 4) : 0
  }
  if (bytes > maxConfigMapBytes) errors.push(tooLong("data", maxConfigMapBytes))
  for (const key of requiredKeys[type] ?? []) if (!Object.hasOwn(data, key)) errors.push(requiredValue(`data[${key}]`))
  if (type === "kubernetes.io/basic-auth" && !Object.hasOwn(data, "username") && !Object.hasOwn(data, "password")) {
    errors.push(requiredValue("data[username]"), requiredValue("data[password]"))
  }
  if (old !== undefined) {
    if (old["type"] !== undefined && secret["type"] !== old["type"]) errors.push(invalidValue("type", secret["type"], "field is immutable"))
    if (old["immutable"] === true) {
      if (secret["immutable"] !== true) errors.push(forbidden("immutable", "field is immutable when `immutable` is set"))
      if (!jsonEqual(secret["data"], old["data"])) errors.push(forbidden("data", "field is immutable when `immutable` is set"))
    }
  }
  return errors
}
