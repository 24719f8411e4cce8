// The protobuf wire shape of core/v1 Event and the messages it embeds: per message, each field's number, JSON name, type and flags.
// Field numbers are Kubernetes' protobuf contract (the `protobuf:` tags of k8s.io/api's Go types): they
// never change once released, so a newer table decodes what an older kubectl sends. The entry syntax is
// the one http/ApiMessages.ts describes.

/** The field tables, by `<group>.<version>.<Kind>`. */
export const eventMessages: Readonly<Record<string, string>> = {
  "core.v1.Event": "1:metadata:meta.v1.ObjectMeta 2:involvedObject:core.v1.ObjectReference 3:reason:string:o 4:message:string:o 5:source:core.v1.EventSource:o 6:firstTimestamp:time:o 7:lastTimestamp:time:o 8:count:int32:o 9:type:string:o 10:eventTime:microTime:o 11:series:core.v1.EventSeries:op 12:action:string:o 13:related:core.v1.ObjectReference:op 14:reportingComponent:string 15:reportingInstance:string",
  "core.v1.EventSeries": "1:count:int32:o 2:lastObservedTime:microTime:o",
  "core.v1.EventSource": "1:component:string:o 2:host:string:o",
  "core.v1.ObjectReference": "1:kind:string:o 2:namespace:string:o 3:name:string:o 4:uid:string:o 5:apiVersion:string:o 6:resourceVersion:string:o 7:fieldPath:string:o"
}
