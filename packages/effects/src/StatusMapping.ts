import { ClusterError, type ClusterErrorReason, type Permission, type Status, type StatusCause, type StatusDetails } from "./ClusterError.ts"

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

const detailsOf = (record: Record<string, unknown> | undefined): StatusDetails | undefined => {
  if (record === undefined) return undefined
  const group = asString(record["group"])
  const kind = asString(record["kind"])
  const name = asString(record["name"])
  if (group === undefined && kind === undefined && name === undefined) return undefined
  return { ...(group === undefined ? {} : { group }), ...(kind === undefined ? {} : { kind }), ...(name === undefined ? {} : { name }) }
}

/** Reads a metav1.Status out of an answer body; a body that is not one still yields the code. */
export const parseStatus = (code: number, body: unknown): Status => {
  const record = asRecord(body)
  const details = asRecord(record?.["details"])
  const rawCauses = details?.["causes"]
  const causes = Array.isArray(rawCauses) ? rawCauses.flatMap((c) => causeOf(c) ?? []) : []
  const named = detailsOf(details)
  return {
    code,
    reason: asString(record?.["reason"]) ?? "",
    message: asString(record?.["message"]) ?? (typeof body === "string" ? body.slice(0, 500) : ""),
    causes,
    ...(named === undefined ? {} : { details: named })
  }
}

/** What the caller asked for, as the authorizer sees a call: its verb, resource, subresource and namespace. */
export interface CallAttributes {
  readonly verb: string
  readonly group: string
  readonly resource: string
  readonly subresource?: string | undefined
  readonly namespace?: string | undefined
}

/** The permission an answer refused, when it is RBAC's refusal (a 403 with reason Forbidden that no webhook
 * gave): the call's verb and namespace, and the group and resource the Status's details name (the call's own
 * when the details leave them out). */
export const deniedPermission = (status: Status, call: CallAttributes): Permission | undefined => {
  if (status.code !== 403 || status.reason !== "Forbidden" || isWebhookDenial(status)) return undefined
  return {
    verb: call.verb,
    group: status.details?.group ?? call.group,
    resource: status.details?.kind ?? call.resource,
    ...(call.subresource === undefined ? {} : { subresource: call.subresource }),
    ...(call.namespace === undefined ? {} : { namespace: call.namespace })
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

/** Turns a non-2xx answer into a ClusterError carrying the parsed Status, the wait the server asked for, and
 * (given what the call asked for) the permission RBAC refused. */
export const clusterErrorOf = (call: string, code: number, body: unknown, retryAfterHeader?: string, attributes?: CallAttributes): ClusterError => {
  const status = parseStatus(code, body)
  const retryAfterMs = retryAfterMsOf(body, retryAfterHeader)
  const denied = attributes === undefined ? undefined : deniedPermission(status, attributes)
  return new ClusterError({ reason: reasonOfStatus(status), call, status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }), ...(denied === undefined ? {} : { denied }) })
}

/** True for a 2xx code. */
export const isSuccessCode = (code: number): boolean => code >= 200 && code < 300
