import type { ClusterError } from "../ClusterError.ts"
import {
  ErrOutcomeUnknown,
  ErrReadOnly,
  ErrRejected,
  ErrUnreachable,
  StartError,
  type ObjectRef
} from "../StartErrors.ts"

/** Every way a lifecycle operation can fail: the seed's six errors, the same classes Start uses. */
export type LifecycleError = StartError

/** The lifecycle's errors as one schema, so supervisors record and read them back like Start's. */
export const LifecycleError = StartError

/** A write (patch or delete) of an existing object that failed: unanswered may have been applied, so
 * Find before retrying; forbidden means the backend cannot write; transport and server failures are
 * transient; the rest are the cluster refusing the change. */
export const writeFailure = (error: ClusterError, ref: ObjectRef): LifecycleError => {
  switch (error.reason) {
    case "Unanswered":
      return new ErrOutcomeUnknown({ reasons: error.reasons, ref })
    case "Forbidden":
      return new ErrReadOnly({ reasons: error.reasons })
    case "Unreachable":
    case "ServerError":
      return new ErrUnreachable({ reasons: error.reasons })
    case "NotFound":
    case "AlreadyExists":
    case "Conflict":
    case "Invalid":
      return new ErrRejected({ reasons: error.reasons, ref })
  }
}
