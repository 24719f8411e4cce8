// The protobuf wire shape of core/v1 Namespace and the messages it embeds: per message, each field's number, JSON name, type and flags.
// Field numbers are Kubernetes' protobuf contract (the `protobuf:` tags of k8s.io/api's Go types): they
// never change once released, so a newer table decodes what an older kubectl sends. The entry syntax is
// the one http/ApiMessages.ts describes.

/** The field tables, by `<group>.<version>.<Kind>`. */
export const namespaceMessages: Readonly<Record<string, string>> = {
  "core.v1.Namespace": "1:metadata:meta.v1.ObjectMeta:o 2:spec:core.v1.NamespaceSpec:o 3:status:core.v1.NamespaceStatus:o",
  "core.v1.NamespaceCondition": "1:type:string 2:status:string 4:lastTransitionTime:time:o 5:reason:string:o 6:message:string:o",
  "core.v1.NamespaceSpec": "1:finalizers:string:ro",
  "core.v1.NamespaceStatus": "1:phase:string:o 2:conditions:core.v1.NamespaceCondition:ro"
}
