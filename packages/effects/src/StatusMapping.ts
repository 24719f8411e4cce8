import { ClusterError, type ClusterErrorReason, type Status, type StatusCause } from "./ClusterError.ts"

// Both layers see the same answers (a code and a body), so both classify them here, once.

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined

const asString = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

const causeOf = (value: unknown): StatusCause | undefined => {
  const record = asRecord(value)
  if (record === undefined) return undefined
  const reason = asString(record["reason"])
  const message = asString(record["message"])
  const field = asString(record["field"])
  return {
    ...(reason === undefined ? {} : { reason }),
    ...(message === undefined ? {} : { message }),
    ...(field === undefined ? {} : { field })
  }
}

/** Reads a metav1.Status out of an answer body; a body that is not one still yields the code. */
export const parseStatus = (code: number, body: unknown): Status => {
  const record = asRecord(body)
  const details = asRecord(record?.["details"])
  const rawCauses = details?.["causes"]
  const causes = Array.isArray(rawCauses) ? rawCauses.flatMap((c) => causeOf(c) ?? []) : []
  return {
    code,
    reason: asString(record?.["reason"]) ?? "",
    message: asString(record?.["message"]) ?? (typeof body === "string" ? body.slice(0, 500) : ""),
    causes
  }
}

// The API server's wording for a webhook's refusal: `admission webhook "<name>" denied the request: ...`.
const webhookDenial = 'admission webhook "'

/** True for an admission webhook's denial: a 403 whose message names the webhook. It refuses this object,
 * unlike RBAC's 403, which refuses the caller. */
export const isWebhookDenial = (status: Status): boolean => status.code === 403 && status.message.startsWith(webhookDenial)

/** The reason a failed answer stands for. A 504 may have been applied (the server gave up waiting), so it
 * counts as unanswered. A webhook's denial is Invalid: the object was refused, not the caller. */
export const reasonOfStatus = (status: Status): ClusterErrorReason => {
  if (status.code === 404) return "NotFound"
  if (status.code === 409) return status.reason === "AlreadyExists" ? "AlreadyExists" : "Conflict"
  if (status.code === 400 || status.code === 422 || isWebhookDenial(status)) return "Invalid"
  if (status.code === 401 || status.code === 403) return "Forbidden"
  if (status.code === 504) return "Unanswered"
  return "ServerError"
}

// Retry-After as delta-seconds, the form the API server sends (an HTTP date is not read: no API server
// sends one, and reading it would take a clock).
const secondsHeader = /^\s*(\d{1,9})\s*$/

/** How long an answer asks the caller to wait, in ms: its Retry-After header (delta-seconds), else the
 * Status's details.retryAfterSeconds; undefined when it names neither. */
export const retryAfterMsOf = (body: unknown, retryAfterHeader: string | undefined): number | undefined => {
  const fromHeader = secondsHeader.exec(retryAfterHeader ?? "")?.[1]
  if (fromHeader !== undefined) return Number(fromHeader) * 1000
  const seconds = asRecord(asRecord(body)?.["details"])?.["retryAfterSeconds"]
  // Number.isFinite is false for anything but a finite number, so no typeof test is needed.
  return Number.isFinite(seconds) && (seconds as number) >= 0 ? (seconds as number) * 1000 : undefined
}

/** Turns a non-2xx answer into a ClusterError carrying the parsed Status and the wait the server asked for. */
export const clusterErrorOf = (call: string, code: number, body: unknown, retryAfterHeader?: string): ClusterError => {
  const status = parseStatus(code, body)
  const retryAfterMs = retryAfterMsOf(body, retryAfterHeader)
  return new ClusterError({ reason: reasonOfStatus(status), call, status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) })
}

/** True for a 2xx code. */
export const isSuccessCode = (code: number): boolean => code >= 200 && code < 300
