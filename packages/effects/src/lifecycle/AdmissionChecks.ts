// dispatch is the controller of one admission check (kueue.admissionCheck): Hold and Release move its
// entry in a Workload's status.admissionChecks. Pure, so the laws of the change can be tested alone.
import { arrayAt, stringAt } from "@dispatch/kube"

/** The states Kueue defines for an admission check entry. */
export type CheckState = "Pending" | "Ready" | "Retry" | "Rejected"

/** The message dispatch leaves on its Pending check while a job is held; Find reads it back. */
export const HOLD_MESSAGE = "held by dispatch"

/** The message dispatch leaves on its Ready check when it lets a job be admitted. */
export const READY_MESSAGE = "released by dispatch"

/** The message dispatch leaves on its Retry check, which asks Kueue to evict an admitted job. */
export const RETRY_MESSAGE = "evicted by dispatch to hold the job"

/** One entry of status.admissionChecks. */
export type CheckEntry = Readonly<Record<string, unknown>>

/** The entries of a Workload's status.admissionChecks that are objects. */
export const checkEntries = (workload: unknown): ReadonlyArray<CheckEntry> =>
  arrayAt(workload, ["status", "admissionChecks"]).flatMap((entry) =>
    typeof entry === "object" && entry !== null && !Array.isArray(entry) ? [entry as CheckEntry] : []
  )

/** The entry of the named check, if the Workload lists it. */
export const checkEntry = (workload: unknown, check: string): CheckEntry | undefined =>
  checkEntries(workload).find((entry) => entry["name"] === check)

/** Whether an entry says dispatch holds the job: Retry (an eviction on its way), or Pending with the
 * hold message. */
export const isHeldEntry = (entry: CheckEntry | undefined): boolean =>
  entry !== undefined && (entry["state"] === "Retry" || (entry["state"] === "Pending" && entry["message"] === HOLD_MESSAGE))

/** The entries with the named check set to `state` and `message`. Other entries and the entry's other
 * fields are kept; the transition time moves only when the state changes; a missing entry is added. */
export const withCheckState = (
  entries: ReadonlyArray<CheckEntry>,
  check: string,
  state: CheckState,
  message: string,
  stamp: string
): ReadonlyArray<CheckEntry> => {
  const existing = entries.find((entry) => entry["name"] === check)
  const next: CheckEntry = {
    ...(existing ?? {}),
    name: check,
    state,
    message,
    lastTransitionTime: existing !== undefined && existing["state"] === state ? (stringAt(existing, ["lastTransitionTime"]) ?? stamp) : stamp
  }
  return existing === undefined ? [...entries, next] : entries.map((entry) => (entry === existing ? next : entry))
}

/** An RFC 3339 timestamp with second precision, as metav1.Time is written. */
export const rfc3339 = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z")
