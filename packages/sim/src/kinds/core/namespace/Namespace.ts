// core/v1 Namespace: its name label, the finalizer and phase it is created with, and its DNS-1123 label name.
import { defineKind, fieldAt } from "../../Kind.ts"
import { isJsonObject } from "../../../apiserver/store/JsonValue.ts"
import { fields, listOf } from "../../../apiserver/validation/FieldTree.ts"
import { dns1123LabelProblems } from "@dispatch/kube"
import { kindFields } from "../CoreFields.ts"
import { namespaceMessages } from "./NamespaceMessages.ts"

// Every namespace carries its own name as a label, as the real server's defaulting sets it.
const defaults = (object: Record<string, unknown>): Record<string, unknown> => {
  const metadata = isJsonObject(object["metadata"]) ? object["metadata"] : {}
  const labels = isJsonObject(metadata["labels"]) ? metadata["labels"] : {}
  return { ...object, metadata: { ...metadata, labels: { ...labels, "kubernetes.io/metadata.name": metadata["name"] } } }
}

/** Namespace. */
export const namespace = defineKind({
  group: "",
  versions: ["v1"],
  kind: "Namespace",
  listKind: "NamespaceList",
  plural: "namespaces",
  singular: "namespace",
  shortNames: ["ns"],
  namespaced: false,
  protobuf: namespaceMessages,
  protobufMessage: "core.v1.Namespace",
  hasStatus: true,
  fields: kindFields({ spec: fields({ finalizers: listOf("string") }), status: fields({ phase: "string", conditions: listOf("open") }) }),
  strategy: {
    defaults,
    // The registry's own: the finalizer the namespace lifecycle waits on, and Active, whatever was sent.
    prepareForCreate: (object) => {
      const spec = isJsonObject(object["spec"]) ? object["spec"] : {}
      return { ...object, spec: { finalizers: ["kubernetes"], ...spec }, status: { phase: "Active" } }
    },
    nameProblems: dns1123LabelProblems
  },
  selectableFields: { "status.phase": fieldAt("status.phase") }
})
