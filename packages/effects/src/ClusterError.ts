import { Schema } from "effect"

/** What went wrong with one API call, precisely enough for a caller to decide what may have happened. */
export const ClusterErrorReason = Schema.Literals([
  "NotFound",
  "AlreadyExists",
  "Conflict",
  /** The server refused the object: 400, 422, or an admission webhook's denial (403 naming the webhook). */
  "Invalid",
  /** The caller may not do this (401, or RBAC's 403). */
  "Forbidden",
  /** Nothing was sent, or the connection was refused: the write did not happen. */
  "Unreachable",
  /** Sent, but no answer arrived within the call timeout: the write may have happened. */
  "Unanswered",
  "ServerError"
])
/** What went wrong with one API call. */
export type ClusterErrorReason = typeof ClusterErrorReason.Type

/** One cause inside a metav1.Status, usually naming a field. */
export const StatusCause = Schema.Struct({
  reason: Schema.optionalKey(Schema.String),
  message: Schema.optionalKey(Schema.String),
  field: Schema.optionalKey(Schema.String)
})
/** One cause inside a metav1.Status. */
export type StatusCause = typeof StatusCause.Type

/** What a metav1.Status's details name: the object's API group, its kind (for RBAC's 403, the resource) and name. */
export const StatusDetails = Schema.Struct({
  group: Schema.optionalKey(Schema.String),
  kind: Schema.optionalKey(Schema.String),
  name: Schema.optionalKey(Schema.String)
})
/** What a metav1.Status's details name. */
export type StatusDetails = typeof StatusDetails.Type

/** The parts of a metav1.Status failure body that callers act on. */
export const Status = Schema.Struct({
  code: Schema.Number,
  reason: Schema.String,
  message: Schema.String,
  causes: Schema.Array(StatusCause),
  details: Schema.optionalKey(StatusDetails)
})
/** The parts of a metav1.Status failure body that callers act on. */
export type Status = typeof Status.Type

/** The permission a call was refused for, as RBAC's rules name it: the verb on the resource (and subresource) of
 * the API group, in the namespace (absent for a cluster-scoped resource). */
export const Permission = Schema.Struct({
  verb: Schema.String,
  group: Schema.String,
  resource: Schema.String,
  subresource: Schema.optionalKey(Schema.String),
  namespace: Schema.optionalKey(Schema.String)
})
/** The permission a call was refused for. */
export type Permission = typeof Permission.Type

/** A permission in the words of `kubectl auth can-i`: `create trainjobs.trainer.kubeflow.org in namespace ml-team`. */
export const describePermission = (p: Permission): string =>
  `${p.verb} ${p.resource}${p.group === "" ? "" : `.${p.group}`}${p.subresource === undefined ? "" : ` --subresource=${p.subresource}`}${p.namespace === undefined ? " (cluster-wide)" : ` in namespace ${p.namespace}`}`

/** A failed API call: the reason, the call that failed, and the server's Status when it answered. */
export class ClusterError extends Schema.TaggedError<ClusterError>()("ClusterError", {
  reason: ClusterErrorReason,
  /** The call, e.g. `create trainjobs default/dj-a-s1`; never credentials. */
  call: Schema.String,
  status: Schema.optionalKey(Status),
  /** For transport failures: the error code (`ECONNREFUSED`, `AbortError`), never a message that could
   * carry a URL with credentials. */
  detail: Schema.optionalKey(Schema.String),
  /** How long the server asked the caller to wait before trying again (its Retry-After, or the Status's
   * details.retryAfterSeconds), in ms; absent when it did not say. */
  retryAfterMs: Schema.optionalKey(Schema.Number),
  /** For RBAC's refusal (a 403 Forbidden that is no webhook's denial): the permission the caller lacks. */
  denied: Schema.optionalKey(Permission)
}) {
  /** The HTTP code the server answered with; undefined when no answer arrived. */
  get code(): number | undefined {
    return this.status?.code
  }

  /** Every reason in one line each: the Status message and each cause, or the transport failure. */
  get reasons(): ReadonlyArray<string> {
    if (this.status === undefined) return [`${this.call}: ${this.reason}${this.detail === undefined ? "" : ` (${this.detail})`}`]
    const causes = this.status.causes.map((c) => `${this.call}: ${c.field ?? ""}${c.field === undefined ? "" : ": "}${c.message ?? c.reason ?? ""}`)
    const denied = this.denied === undefined ? [] : [`${this.call}: missing permission: ${describePermission(this.denied)}`]
    return [`${this.call}: ${this.reason} (${this.status.code}): ${this.status.message}`, ...denied, ...causes]
  }
}
