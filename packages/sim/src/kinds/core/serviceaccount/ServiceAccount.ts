// core/v1 ServiceAccount: an identity for processes in pods, `system:serviceaccount:<namespace>:<name>`.
import { defineKind } from "../../Kind.ts"
import { fields, listOf } from "../../../apiserver/validation/FieldTree.ts"
import { ageColumn, column, field, nameColumn, records } from "../../Columns.ts"
import { objectMeta } from "../CoreFields.ts"

const objectReference = fields({ kind: "string", namespace: "string", name: "string", uid: "string", apiVersion: "string", resourceVersion: "string", fieldPath: "string" })

/** ServiceAccount. */
export const serviceAccount = defineKind({
  group: "",
  versions: ["v1"],
  kind: "ServiceAccount",
  listKind: "ServiceAccountList",
  plural: "serviceaccounts",
  singular: "serviceaccount",
  shortNames: ["sa"],
  namespaced: true,
  hasStatus: false,
  protobuf: {
    "core.v1.ServiceAccount": "1:metadata:meta.v1.ObjectMeta:o 2:secrets:core.v1.ObjectReference:ro 3:imagePullSecrets:core.v1.LocalObjectReference:ro 4:automountServiceAccountToken:bool:op",
    "core.v1.ObjectReference": "1:kind:string:o 2:namespace:string:o 3:name:string:o 4:uid:string:o 5:apiVersion:string:o 6:resourceVersion:string:o 7:fieldPath:string:o",
    "core.v1.LocalObjectReference": "1:name:string:o"
  },
  protobufMessage: "core.v1.ServiceAccount",
  fields: fields({
    apiVersion: "string",
    kind: "string",
    metadata: objectMeta,
    secrets: listOf(objectReference),
    imagePullSecrets: listOf(fields({ name: "string" })),
    automountServiceAccountToken: "boolean"
  }),
  columns: [nameColumn, column("Secrets", "string", "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.", (o) => records(field(o, "secrets")).length), ageColumn],
  descriptions: {
    secrets: "Secrets in the same namespace that pods running as this service account may use.",
    imagePullSecrets: "Secrets in the same namespace used to pull images for pods that reference this service account.",
    automountServiceAccountToken: "Whether pods running as this service account get an API token mounted automatically."
  }
})
