// core/v1 Events as controllers and the kubelet record them: one object per occurrence, named
// `<object>.<hex>` as client-go's recorder names them, pointing at the object it is about.
import type { KubeObject, SystemClient } from "../Api.ts"
import { nameOf, namespaceOf, uidOf } from "./KubeFields.ts"
import { formatTimestamp } from "./Timestamps.ts"

/** Normal or Warning, as Events are typed. */
export type EventType = "Normal" | "Warning"

/** Records Events for one simulator (its own counter keeps names unique within a clock instant). */
export interface EventRecorder {
  record(system: SystemClient, about: KubeObject, type: EventType, reason: string, message: string, component: string): void
}

/** A recorder whose event names are unique for this simulator. */
export const eventRecorder = (): EventRecorder => {
  let sequence = 0
  return {
    record(system, about, type, reason, message, component) {
      const now = system.now()
      // client-go suffixes the object's name with the event time in hex nanoseconds.
      const suffix = (BigInt(Math.floor(now)) * 1_000_000n + BigInt(sequence++)).toString(16)
      const stamp = formatTimestamp(now)
      system.create("events", {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: `${nameOf(about)}.${suffix}`, namespace: namespaceOf(about) ?? "default" },
        involvedObject: {
          apiVersion: about.apiVersion,
          kind: about.kind,
          name: nameOf(about),
          namespace: namespaceOf(about) ?? "default",
          uid: uidOf(about)
        },
        reason,
        message,
        type,
        source: { component },
        firstTimestamp: stamp,
        lastTimestamp: stamp,
        count: 1,
        reportingComponent: component,
        reportingInstance: ""
      })
    }
  }
}
