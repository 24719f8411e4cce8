// Events as the cluster's components record them, one object per occurrence, named `<object>.<hex>` as
// client-go's recorders name them, pointing at the object it is about, read back through core/v1. Two
// recorders write them: client-go's core/v1 recorder (kubelet, job-controller) stamps first and last
// timestamps and a count, and reports as its source's component and host; the events.k8s.io/v1 recorder
// (kube-scheduler) stamps only eventTime, in microseconds, with an action and a reporting instance, and
// leaves the core/v1 timestamps null. Events go an hour after they were recorded, as the API server's
// default event TTL has them go.
import type { KubeObject, SystemClient } from "../../Api.ts"
import { nameOf, namespaceOf, uidOf } from "./KubeFields.ts"
import { formatTimestamp } from "./Timestamps.ts"

/** Normal or Warning, as Events are typed. */
export type EventType = "Normal" | "Warning"

/** Who records an event, and through which of client-go's recorders. */
export type EventReporter =
  /** tools/record's core/v1 recorder: its EventSource's component and host (the reporting instance). */
  | { readonly api: "core/v1"; readonly component: string; readonly host?: string }
  /** tools/events' events.k8s.io/v1 recorder: its reporting controller and instance, and the event's action. */
  | { readonly api: "events.k8s.io/v1"; readonly controller: string; readonly instance: string; readonly action: string }

/** Records Events for one simulator (its own counter keeps names unique within a clock instant). */
export interface EventRecorder {
  record(system: SystemClient, about: KubeObject, type: EventType, reason: string, message: string, reporter: EventReporter): void
}

/** A time with microseconds, as metav1.MicroTime writes it (the simulator's clock counts milliseconds). */
export const formatMicroTime = (ms: number): string => new Date(Math.floor(ms)).toISOString().replace("Z", "000Z")

// What each recorder writes besides the metadata, the object and the words, as core/v1 reads it back.
const reported = (reporter: EventReporter, now: number): Record<string, unknown> => {
  if (reporter.api === "events.k8s.io/v1") {
    return {
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: formatMicroTime(now),
      action: reporter.action,
      reportingComponent: reporter.controller,
      reportingInstance: reporter.instance
    }
  }
  const stamp = formatTimestamp(now)
  return {
    source: { component: reporter.component, ...(reporter.host === undefined ? {} : { host: reporter.host }) },
    firstTimestamp: stamp,
    lastTimestamp: stamp,
    count: 1,
    eventTime: null,
    reportingComponent: reporter.component,
    reportingInstance: reporter.host ?? ""
  }
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
    record(system, about, type, reason, message, reporter) {
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
        ...reported(reporter, now)
      })
    }
  }
}
