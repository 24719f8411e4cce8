// The protobuf wire shape of core/v1 ConfigMap: per message, each field's number, JSON name, type and flags.
// Field numbers are Kubernetes' protobuf contract (the `protobuf:` tags of k8s.io/api's Go types): they
// never change once released, so a newer table decodes what an older kubectl sends. The entry syntax is
// the one http/ApiMessages.ts describes.

/** The field tables, by `<group>.<version>.<Kind>`. */
export const configMapMessages: Readonly<Record<string, string>> = {
  "core.v1.ConfigMap": "1:metadata:meta.v1.ObjectMeta:o 4:immutable:bool:op 2:data:string:mo 3:binaryData:bytes:mo"
}
