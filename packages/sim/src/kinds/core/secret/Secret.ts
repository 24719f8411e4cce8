// core/v1 Secret: confidential data by key, stored base64-encoded.
import { defineKind, fieldAt } from "../../Kind.ts"
import { ageColumn, column, field, nameColumn, record, text } from "../../Columns.ts"
import { checkSecret, secretDefaults, secretFields } from "./SecretRules.ts"
import { secretMessages } from "./SecretMessages.ts"

/** Secret. */
export const secret = defineKind({
  group: "",
  versions: ["v1"],
  kind: "Secret",
  listKind: "SecretList",
  plural: "secrets",
  singular: "secret",
  shortNames: [],
  namespaced: true,
  hasStatus: false,
  protobuf: secretMessages,
  protobufMessage: "core.v1.Secret",
  fields: secretFields,
  strategy: { defaults: secretDefaults, validate: checkSecret },
  selectableFields: { type: fieldAt("type") },
  columns: [
    nameColumn,
    column("Type", "string", "The type of the secret.", (o) => text(field(o, "type"))),
    column("Data", "string", "The number of keys in the secret.", (o) => Object.keys(record(field(o, "data"))).length),
    ageColumn
  ],
  descriptions: {
    data: "Secret values as base64-encoded bytes, by key.",
    stringData: "Secret values as plain strings, by key; written into data on every write, never stored or read back.",
    type: "How the data is used (Opaque by default; kubernetes.io/tls, kubernetes.io/dockerconfigjson ...).",
    immutable: "Once true, data cannot change, nor can this be unset."
  }
})
