import { causeOf } from "../ClusterCause.ts"
import type { ClusterError } from "../ClusterError.ts"
import { definiteWriteFailure } from "../StartFailure.ts"
import { ErrOutcomeUnknown, StartError, type ObjectRef } from "../StartErrors.ts"

/** Every way a lifecycle operation can fail: the seed's six errors, the same classes Start uses. */
export type LifecycleError = StartError

/** The lifecycle's errors as one schema, so supervisors record and read them back like Start's. */
export const LifecycleError = StartError

/** A write (patch or delete) of an existing object that failed: unanswered may have been applied, so
 * Find before retrying; otherwise as a definite write failure, with the object's reference. */
export const writeFailure = (error: ClusterError, ref: ObjectRef): LifecycleError =>
  error.reason === "Unanswered" ? new ErrOutcomeUnknown({ reasons: error.reasons, ref, cause: causeOf(error) }) : definiteWriteFailure(error, ref)
