import type { Refusal } from "@dispatch/render"
import { asPassing, causeOf } from "./ClusterCause.ts"
import type { ClusterError } from "./ClusterError.ts"
import {
  ErrInvalid,
  ErrOutcomeUnknown,
  ErrReadOnly,
  ErrRejected,
  ErrUnreachable,
  ErrUnsupported,
  causeOfError,
  isPassing,
  type ObjectRef,
  type StartError
} from "./StartErrors.ts"

// How Start reports what went wrong. Pure: which error a failed call becomes depends only on the call's
// reason, so the table in docs/errors.md can be read off these functions.

/** The error a render refusal stands for: a refusal is made before anything exists, so it names no object. */
export const errorOfRefusal = (refusal: Refusal): StartError => {
  const reasons = refusal.reasons
  switch (refusal.error) {
    case "ErrInvalid":
      return new ErrInvalid({ reasons })
    case "ErrUnsupported":
      return new ErrUnsupported({ reasons })
    case "ErrRejected":
      return new ErrRejected({ reasons })
    case "ErrUnreachable":
      return new ErrUnreachable({ reasons })
    case "ErrReadOnly":
      return new ErrReadOnly({ reasons })
    case "ErrOutcomeUnknown":
      return new ErrOutcomeUnknown({ reasons })
  }
}

/** A read that failed before anything was written (steps 2 and 5's look at an existing copy). Nothing
 * exists because of this Start, so transport and server failures are retryable; a forbidden read means
 * the backend cannot serve this runtime. Either carries the call's cause. */
export const readFailure = (error: ClusterError): StartError => {
  const fields = { reasons: error.reasons, cause: causeOf(error) }
  return error.reason === "Forbidden" ? new ErrUnsupported(fields) : new ErrUnreachable(fields)
}

/** A write that failed: forbidden means the backend cannot write; transport and server failures are
 * transient; the rest are the cluster refusing the change (ErrRejected, with `ref` when given). Each
 * carries the call's cause (a Conflict's is passing: the object moved, and a re-read may settle it). An
 * unanswered write is transient here: the callers to whom it may have landed (a TrainJob create, a
 * lifecycle patch or delete) handle Unanswered before calling this. */
export const definiteWriteFailure = (error: ClusterError, ref?: ObjectRef): StartError => {
  const fields = { reasons: error.reasons, cause: causeOf(error) }
  switch (error.reason) {
    case "Forbidden":
      return new ErrReadOnly(fields)
    case "Unreachable":
    case "ServerError":
    case "Unanswered":
      return new ErrUnreachable(fields)
    case "NotFound":
    case "AlreadyExists":
    case "Conflict":
    case "Invalid":
      return new ErrRejected({ ...fields, ...(ref === undefined ? {} : { ref }) })
  }
}

/** A refusal from steps 2, 3 or 5 whose frozen-runtime fallback could not be read. The refusal stands,
 * with the read's reasons after its own. When the read met a passing fault, the refusal may be wrong (the
 * job's frozen copy may exist), so its cause becomes that passing fault: a supervisor tries again rather
 * than failing the job. A read that was itself refused (a 403) leaves the refusal's cause as it was. */
export const refusalDespiteUnreadFrozen = (refused: ErrUnsupported | ErrRejected, read: StartError): ErrUnsupported | ErrRejected => {
  const passing = isPassing(read)
  const why = passing ? "the job's frozen runtime could not be read, so this may change on retry" : "the job's frozen runtime could not be read"
  const reasons = [...refused.reasons, ...read.reasons.map((r) => `${why}: ${r}`)]
  const cause = passing ? asPassing(causeOfError(read) ?? { kind: "Passing", reason: "Unreachable" }) : refused.cause
  const fields = { reasons, ...(cause === undefined ? {} : { cause }) }
  return refused._tag === "ErrUnsupported" ? new ErrUnsupported(fields) : new ErrRejected({ ...fields, ...(refused.ref === undefined ? {} : { ref: refused.ref }) })
}
