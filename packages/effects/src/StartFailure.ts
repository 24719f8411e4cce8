import type { Refusal } from "@dispatch/render"
import type { ClusterError } from "./ClusterError.ts"
import {
  ErrInvalid,
  ErrOutcomeUnknown,
  ErrReadOnly,
  ErrRejected,
  ErrUnreachable,
  ErrUnsupported,
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
 * the backend cannot serve this runtime. */
export const readFailure = (error: ClusterError): StartError =>
  error.reason === "Forbidden" ? new ErrUnsupported({ reasons: error.reasons }) : new ErrUnreachable({ reasons: error.reasons })

/** A write that failed: forbidden means the backend cannot write; transport and server failures are
 * transient; the rest are the cluster refusing the change (ErrRejected, with `ref` when given). An
 * unanswered write is transient here: the callers to whom it may have landed (a TrainJob create, a
 * lifecycle patch or delete) handle Unanswered before calling this. */
export const definiteWriteFailure = (error: ClusterError, ref?: ObjectRef): StartError => {
  switch (error.reason) {
    case "Forbidden":
      return new ErrReadOnly({ reasons: error.reasons })
    case "Unreachable":
    case "ServerError":
    case "Unanswered":
      return new ErrUnreachable({ reasons: error.reasons })
    case "NotFound":
    case "AlreadyExists":
    case "Conflict":
    case "Invalid":
      return new ErrRejected({ reasons: error.reasons, ...(ref === undefined ? {} : { ref }) })
  }
}
