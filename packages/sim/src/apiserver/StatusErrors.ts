// The API server's failure Status bodies, one builder per reason, with the messages and details the
// real server sends (details.kind is the plural for NotFound/AlreadyExists/Conflict and the Kind for
// Invalid).
import type { ApiResponse, Resource } from "../Api.ts"
import { statusBody } from "../Api.ts"
import { errorLine, type FieldError } from "./validation/FieldErrors.ts"
import { qualifiedKind, qualifiedResource } from "./ResourceNames.ts"

const answer = (code: number, body: Record<string, unknown>, headers?: Record<string, string>): ApiResponse =>
  headers === undefined ? { code, body } : { code, body, headers }

const groupDetail = (resource: Resource): Record<string, string> => (resource.group === "" ? {} : { group: resource.group })

/** 404: the named object does not exist. */
export const notFound = (resource: Resource, name: string): ApiResponse =>
  answer(404, statusBody(404, "NotFound", `${qualifiedResource(resource)} "${name}" not found`, { name, ...groupDetail(resource), kind: resource.plural }))

/** 404: the path names nothing the server serves. */
export const pathNotFound = (): ApiResponse =>
  answer(404, statusBody(404, "NotFound", "the server could not find the requested resource", {}))

/** 409: an object of that name exists already. */
export const alreadyExists = (resource: Resource, name: string): ApiResponse =>
  answer(409, statusBody(409, "AlreadyExists", `${qualifiedResource(resource)} "${name}" already exists`, { name, ...groupDetail(resource), kind: resource.plural }))

/** 409: a write conflicts with the stored object (stale resourceVersion, failed precondition). */
export const conflict = (resource: Resource, name: string, why: string): ApiResponse =>
  answer(
    409,
    statusBody(409, "Conflict", `Operation cannot be fulfilled on ${qualifiedResource(resource)} "${name}": ${why}`, {
      name,
      ...groupDetail(resource),
      kind: resource.plural
    })
  )

/** The Conflict explanation for a stale resourceVersion. */
export const staleObject = "the object has been modified; please apply your changes to the latest version and try again"

/** 422: every field error at once. */
export const invalid = (resource: Resource, name: string, errors: ReadonlyArray<FieldError>): ApiResponse => {
  const lines = errors.map(errorLine)
  const listed = lines.length === 1 ? (lines[0] ?? "") : `[${lines.join(", ")}]`
  return answer(
    422,
    statusBody(422, "Invalid", `${qualifiedKind(resource)} "${name}" is invalid: ${listed}`, {
      name,
      ...groupDetail(resource),
      kind: resource.kind,
      causes: errors.map((e) => ({ reason: e.reason, message: e.message, field: e.field }))
    })
  )
}

/** 403: an admission webhook denied the request. controller-runtime answers a webhook's refusal with
 * Forbidden, and the API server names the webhook in the message and sends no details: the resource and
 * name are not part of the answer. */
export const webhookDenied = (_resource: Resource, _name: string, webhook: string, reasons: ReadonlyArray<string>): ApiResponse =>
  answer(403, statusBody(403, "Forbidden", `admission webhook "${webhook}" denied the request: ${reasons.join("; ")}`))

/** 422 without a kind: a JSON patch that could not be applied. */
export const patchNotApplicable = (message: string): ApiResponse =>
  answer(
    422,
    statusBody(422, "Invalid", "the server rejected our request due to an error in our request", {
      causes: [{ reason: "UnexpectedServerResponse", message }]
    })
  )

/** 400: the request itself is malformed. */
export const badRequest = (message: string): ApiResponse => answer(400, statusBody(400, "BadRequest", message))

/** 401: no known bearer token. */
export const unauthorized = (): ApiResponse => answer(401, statusBody(401, "Unauthorized", "Unauthorized"))

/** 403: the identity may not use this verb, or the namespace refuses new content. */
export const forbidden = (resource: Resource, name: string | undefined, message: string): ApiResponse =>
  answer(403, statusBody(403, "Forbidden", message, { ...(name === undefined ? {} : { name }), ...groupDetail(resource), kind: resource.plural }))

/** 405: the verb is not served on this path. */
export const methodNotAllowed = (): ApiResponse =>
  answer(405, statusBody(405, "MethodNotAllowed", "the server does not allow this method on the requested resource"))

/** 410: the resourceVersion asked for is older than the event history kept. */
export const expired = (message: string): ApiResponse => answer(410, statusBody(410, "Expired", message))

/** 415: a patch type the server does not take for this resource. */
export const unsupportedMediaType = (patchType: string): ApiResponse =>
  answer(
    415,
    statusBody(
      415,
      "UnsupportedMediaType",
      `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json (not ${patchType})`
    )
  )

const reasonForCode: Readonly<Record<number, string>> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  409: "Conflict",
  410: "Expired",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout"
}

const defaultMessage: Readonly<Record<number, string>> = {
  429: "Too many requests, please try again later.",
  500: "Internal error occurred: injected fault",
  503: "the server is currently unable to handle the request",
  504: "the server was unable to return a response in the time allotted, but may still be processing the request"
}

/** An injected fault's Status: the reason that goes with the code, and Retry-After when given. */
export const injected = (code: number, message?: string, retryAfterSeconds?: number): ApiResponse => {
  const reason = reasonForCode[code] ?? (code >= 500 ? "InternalError" : "BadRequest")
  const text = message ?? defaultMessage[code] ?? `injected fault ${code}`
  const details = retryAfterSeconds === undefined ? undefined : { retryAfterSeconds }
  const headers = retryAfterSeconds === undefined ? undefined : { "Retry-After": String(retryAfterSeconds) }
  return answer(code, statusBody(code, reason, text, details), headers)
}

/** 422: the request's options (fieldManager, force) are invalid, named as the real server names them. */
export const optionsInvalid = (kind: "CreateOptions" | "UpdateOptions" | "PatchOptions", errors: ReadonlyArray<FieldError>): ApiResponse => {
  const lines = errors.map(errorLine)
  const listed = lines.length === 1 ? (lines[0] ?? "") : `[${lines.join(", ")}]`
  return answer(
    422,
    statusBody(422, "Invalid", `${kind}.meta.k8s.io "" is invalid: ${listed}`, {
      group: "meta.k8s.io",
      kind,
      causes: errors.map((e) => ({ reason: e.reason, message: e.message, field: e.field }))
    })
  )
}

/** One field another manager owns, which an apply would change. */
export interface ApplyConflict {
  /** The owner as the real server prints it: `"kubectl-edit" using v1`, or `"x" with subresource "status"`. */
  readonly manager: string
  /** The path as the real server prints it: `.spec.containers[name="x"].image`. */
  readonly path: string
}

/** 409: a server-side apply would change fields other managers own. */
export const applyConflict = (conflicts: ReadonlyArray<ApplyConflict>): ApiResponse => {
  const first = conflicts[0]
  const managers = [...new Set(conflicts.map((c) => c.manager))].sort()
  const message =
    conflicts.length === 1 && first !== undefined
      ? `Apply failed with 1 conflict: conflict with ${first.manager}: ${first.path}`
      : `Apply failed with ${conflicts.length} conflicts: ${managers
          .flatMap((m) => [`conflicts with ${m}:`, ...conflicts.filter((c) => c.manager === m).map((c) => `- ${c.path}`)])
          .join("\n")}`
  return answer(
    409,
    statusBody(409, "Conflict", message, {
      causes: conflicts.map((c) => ({ reason: "FieldManagerConflict", message: `conflict with ${c.manager}`, field: c.path }))
    })
  )
}

/**
 * 500 with no reason: an error the real server returns as it is, not as an API status (a built-in kind's
 * apply configuration that names a field its type does not declare is one).
 */
export const unclassified = (message: string): ApiResponse =>
  answer(500, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, code: 500 })
