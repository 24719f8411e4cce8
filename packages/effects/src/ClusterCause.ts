// Which cluster answer decided an error, and whether the same request could get a different one: the
// line between a refusal (fix something first) and a passing fault (try again later). Pure.
import { Schema } from "effect"
import { type ClusterError, ClusterErrorReason } from "./ClusterError.ts"

/** Refused: the same request would get the same answer again. Passing: it was not answered, or the answer
 * says "not now" (429, 500, 502, 503, 504, a timeout, a reset or refused connection, a 409 on a write that
 * can be re-read). */
export const CauseKind = Schema.Literals(["Refused", "Passing"])
/** Refused or Passing. */
export type CauseKind = typeof CauseKind.Type

/** The cluster answer that decided an error: its kind, the call's reason, the HTTP code when one came, and
 * the wait the server asked for. */
export const ClusterCause = Schema.Struct({
  kind: CauseKind,
  reason: ClusterErrorReason,
  code: Schema.optionalKey(Schema.Number),
  retryAfterMs: Schema.optionalKey(Schema.Number)
})
/** The cluster answer that decided an error. */
export type ClusterCause = typeof ClusterCause.Type

/** The codes of an answer that says "not now": too many requests, and the server or a proxy failing. */
export const passingCodes: ReadonlySet<number> = new Set([429, 500, 502, 503, 504])

/** Whether the same call could get another answer: unanswered, unreachable, a passing code, or a Conflict
 * (the object moved: re-read it and write again). NotFound, AlreadyExists, Invalid and Forbidden would
 * come again; so would a server error with any other code (501, a 200 that is no object). */
export const kindOfClusterError = (error: ClusterError): CauseKind => {
  switch (error.reason) {
    case "Unanswered":
    case "Unreachable":
    case "Conflict":
      return "Passing"
    case "ServerError":
      return error.code === undefined || passingCodes.has(error.code) ? "Passing" : "Refused"
    case "NotFound":
    case "AlreadyExists":
    case "Invalid":
    case "Forbidden":
      return "Refused"
  }
}

/** The cause a failed call stands for; `kind` overrides the classification where the caller knows better
 * (a NotFound that is passing because the object is still being made, a Conflict that is final). */
export const causeOf = (error: ClusterError, kind: CauseKind = kindOfClusterError(error)): ClusterCause => ({
  kind,
  reason: error.reason,
  ...(error.code === undefined ? {} : { code: error.code }),
  ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs })
})

/** The same cause, now passing: a refusal that a later read may show was wrong. */
export const asPassing = (cause: ClusterCause): ClusterCause => ({ ...cause, kind: "Passing" })
