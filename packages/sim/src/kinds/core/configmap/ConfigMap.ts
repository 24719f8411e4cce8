// core/v1 ConfigMap: configuration data by key.
import { defineKind } from "../../Kind.ts"
import { ageColumn, column, field, nameColumn, record } from "../../Columns.ts"
import { checkConfigMap, configMapFields } from "./ConfigMapRules.ts"
import { configMapMessages } from "./ConfigMapMessages.ts"

/** ConfigMap. */
export const configMap = defineKind({
  group: "",
  versions: ["v1"],
  kind: "ConfigMap",
  listKind: "ConfigMapList",
  plural: "configmaps",
  singular: "configmap",
  shortNames: ["cm"],
  namespaced: true,
  protobuf: configMapMessages,
  protobufMessage: "core.v1.ConfigMap",
  hasStatus: false,
  fields: configMapFields,
  strategy: { validate: checkConfigMap },
  columns: [
    nameColumn,
    column("Data", "string", "Data contains the configuration data.", (o) => Object.keys(record(field(o, "data"))).length + Object.keys(record(field(o, "binaryData"))).length),
    ageColumn
  ],
  descriptions: {
  data: "Configuration as UTF-8 strings, by key (keys of alphanumerics, '-', '_' and '.').",
  binaryData: "Configuration as base64-encoded bytes, by key; no key may be in data too.",
  immutable: "Once true, data and binaryData cannot change, nor can this be unset."
}
})
