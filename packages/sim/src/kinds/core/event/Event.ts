// core/v1 Event: what happened to an object, as `kubectl get events` lists it.
import { defineKind, fieldAt } from "../../Kind.ts"
import { column, field, text, time } from "../../Columns.ts"
import { humanDuration } from "@dispatch/kube"
import { eventMessages } from "./EventMessages.ts"

const selectable = [
  "involvedObject.kind",
  "involvedObject.namespace",
  "involvedObject.name",
  "involvedObject.uid",
  "involvedObject.apiVersion",
  "involvedObject.resourceVersion",
  "involvedObject.fieldPath",
  "reason",
  "reportingComponent",
  "source",
  "type"
]

/** Event. */
export const event = defineKind({
  group: "",
  versions: ["v1"],
  kind: "Event",
  listKind: "EventList",
  plural: "events",
  singular: "event",
  shortNames: ["ev"],
  namespaced: true,
  protobuf: eventMessages,
  protobufMessage: "core.v1.Event",
  hasStatus: false,
  // Events are selected by `source`: their source's component.
  selectableFields: Object.fromEntries(selectable.map((f) => [f, fieldAt(f === "source" ? "source.component" : f)])),
  columns: [
    column("Last Seen", "string", "Time since the event was last seen.", (o, now) => {
      const last = time(field(o, "lastTimestamp")) ?? time(field(o, "eventTime"))
      return last === undefined ? "<unknown>" : humanDuration(now - last)
    }),
    column("Type", "string", "Normal or Warning.", (o) => text(field(o, "type"))),
    column("Reason", "string", "Why the event happened.", (o) => text(field(o, "reason"))),
    column("Object", "string", "The object the event is about.", (o) => `${String(field(o, "involvedObject", "kind") ?? "").toLowerCase()}/${String(field(o, "involvedObject", "name") ?? "")}`),
    column("Message", "string", "What happened.", (o) => text(field(o, "message")))
  ]
})
