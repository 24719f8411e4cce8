import { Schema } from "effect"
import { ClusterCause } from "./ClusterCause.ts"

/** Names the object an error is about: `<namespace>/<name>`, with the UID once it is known. */
export const ObjectRef = Schema.Struct({
  namespace: Schema.String,
  name: Schema.String,
  uid: Schema.optionalKey(Schema.String)
})
/** Names the object an error is about. */
export type ObjectRef = typeof ObjectRef.Type

/** The reference errors carry for a namespaced object, with its UID once it is known. */
export const objectRef = (target: { readonly namespace: string; readonly name: string }, uid?: string): ObjectRef => ({
  namespace: target.namespace,
  name: target.name,
  ...(uid === undefined ? {} : { uid })
})

const reasons = Schema.Array(Schema.String)

/** The cluster answer that decided the error, when a cluster call did (absent for a refusal made without
 * one: the request, the render, a read-back that differs). */
const cause = Schema.optionalKey(ClusterCause)

/** The request or its spec is malformed: fix it, do not retry as is. */
export class ErrInvalid extends Schema.TaggedError<ErrInvalid>()("ErrInvalid", { reasons }) {}

/** The backend cannot run this request (runtime, extension, or a gate not proven): do not retry here. */
export class ErrUnsupported extends Schema.TaggedError<ErrUnsupported>()("ErrUnsupported", { reasons, cause }) {}

/** The cluster refused or changed what Start wrote; any object Start created has been stopped. */
export class ErrRejected extends Schema.TaggedError<ErrRejected>()("ErrRejected", {
  reasons,
  ref: Schema.optionalKey(ObjectRef),
  cause
}) {}

/** The cluster could not be reached or failed transiently; no TrainJob exists: retry later. */
export class ErrUnreachable extends Schema.TaggedError<ErrUnreachable>()("ErrUnreachable", { reasons, cause }) {}

/** The backend may read but not write: do not retry until permissions change. */
export class ErrReadOnly extends Schema.TaggedError<ErrReadOnly>()("ErrReadOnly", { reasons, cause }) {}

/** A write may or may not have happened: Find before retrying. */
export class ErrOutcomeUnknown extends Schema.TaggedError<ErrOutcomeUnknown>()("ErrOutcomeUnknown", {
  reasons,
  ref: Schema.optionalKey(ObjectRef),
  cause
}) {}

/** Every way Start can fail. */
export type StartError = ErrInvalid | ErrUnsupported | ErrRejected | ErrUnreachable | ErrReadOnly | ErrOutcomeUnknown

/** Every way Start can fail, as one schema, so supervisors can record and read back any of them. */
export const StartError = Schema.Union([ErrInvalid, ErrUnsupported, ErrRejected, ErrUnreachable, ErrReadOnly, ErrOutcomeUnknown])

/** Whether trying the same request again later may succeed: always for ErrUnreachable and
 * ErrOutcomeUnknown (Find first), and for any error a passing cluster fault decided. Everything else is a
 * refusal the same request would get again. */
export const isPassing = (error: StartError): boolean =>
  error._tag === "ErrUnreachable" || error._tag === "ErrOutcomeUnknown" || causeOfError(error)?.kind === "Passing"

/** The cluster answer that decided an error, if one did (ErrInvalid never has one). */
export const causeOfError = (error: StartError): ClusterCause | undefined => (error as { readonly cause?: ClusterCause }).cause

/** The wait, in ms, the server asked for before the request is tried again (its Retry-After), if it did. */
export const retryAfterOf = (error: StartError): number | undefined => causeOfError(error)?.retryAfterMs
