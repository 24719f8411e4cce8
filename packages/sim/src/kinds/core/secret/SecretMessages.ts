// The protobuf wire shape of core/v1 Secret: each field's number, JSON name, type and flags. Field numbers
// are Kubernetes' protobuf contract (the `protobuf:` tags of k8s.io/api's Go types): they never change once
// released, so a newer table decodes what an older kubectl sends. The entry syntax is the one
// http/ApiMessages.ts describes.

/** The field tables, by `<group>.<version>.<Kind>`. */
export const secretMessages: Readonly<Record<string, string>> = {
  "core.v1.Secret": "1:metadata:meta.v1.ObjectMeta:o 5:immutable:bool:op 2:data:bytes:mo 4:stringData:string:mo 3:type:string:o"
}
