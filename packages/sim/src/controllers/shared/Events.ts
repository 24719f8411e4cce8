// core/v1 Events as controllers and the kubelet record them: one object per occurrence, named
// `<object>.<hex>` as client-go's recorder names them, pointing at the object it is about. Events go
// an hour after they were recorded, as the API server's default event TTL has them go.
import type { KubeObject, SystemClient } from "../../Api.ts"
import { nameOf, namespaceOf, uidOf } from "./KubeFields.ts"
import { formatTimestamp } from "./Timestamps.ts"

/** Normal or Warning, as Events are typed. */
export type EventType = "Normal" | "Warning"

/** Records Events for one simulator (its own counter keeps names unique within a clock instant). */
export interface EventRecorder {
  record(system: SystemClient, about: KubeObject, type: EventType, reason: string, message: string, component: string): void
}

/** How long an Event is kept (kube-apiserver's --event-ttl default). */
export const eventTtlMs = 60 * 60 * 1000

/** A recorder whose event names are unique for this simulator. */
export const eventRecorder = (ttlMs = eventTtlMs): EventRecorder => {
  let sequence = 0
  // Recorded events, oldest first: expiring them costs only the ones that go.
  const recorded: Array<{ readonly time: number; readonly namespace: string; readonly name: string }> = []
  let oldest = 0
  return {
    record(system, about, type, reason, message, component) {
      const now = system.now()
      while (oldest < recorded.length && (recorded[oldest]?.time ?? now) <= now - ttlMs) {
        const expired = recorded[oldest++]
        if (expired !== undefined) system.delete("events", expired.namespace, expired.name)
      }
      if (oldest > 1024 && oldest * 2 > recorded.length) {
        recorded.splice(0, oldest)
        oldest = 0
      }
      // client-go suffixes the object's name with the event time in hex nanoseconds.
      const suffix = (BigInt(Math.floor(now)) * 1_000_000n + BigInt(sequence++)).toString(16)
      const stamp = formatTimestamp(now)
      const name = `${nameOf(about)}.${suffix}`
      const namespace = namespaceOf(about) ?? "default"
      recorded.push({ time: now, namespace, name })
      system.create("events", {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name, namespace },
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
