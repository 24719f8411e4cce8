import { Effect } from "effect"
import { type BackendConfig, isJobId, MAX_TRAINJOB_NAME, trainJobName } from "@dispatch/render"
import { ErrInvalid } from "../StartErrors.ts"

/** One submission of one job: what Find, Open, Hold, Release and Stop act on. */
export interface JobKey {
  readonly job: string
  readonly submission: number
}

/** Where a job's TrainJob and runtime copy live: both share the deterministic name. */
export interface JobObjects {
  readonly key: JobKey
  readonly namespace: string
  readonly name: string
}

/** Every reason a key names no TrainJob dispatch could have made; empty when it is fine. */
export const jobKeyProblems = (key: JobKey): ReadonlyArray<string> => {
  const problems: Array<string> = []
  if (!isJobId(key.job)) problems.push(`job: ${JSON.stringify(key.job).slice(0, 80)} is not a JobID (a ULID: 26 upper-case Crockford base32 characters)`)
  // The name's length bounds the submission exactly as Start does: `-s<N>` leaves room for six digits.
  const validSubmission = Number.isInteger(key.submission) && key.submission >= 1 && trainJobName("0".repeat(26), key.submission).length <= MAX_TRAINJOB_NAME
  if (!validSubmission) problems.push(`submission: must be a whole number from 1 to 999999, got ${String(key.submission)}`)
  return problems
}

/** The namespace and name of a job's objects; a malformed key is ErrInvalid naming every problem. */
export const jobObjects = (config: BackendConfig, key: JobKey): Effect.Effect<JobObjects, ErrInvalid> => {
  const problems = jobKeyProblems(key)
  if (problems.length > 0) return Effect.fail(new ErrInvalid({ reasons: problems }))
  return Effect.succeed({ key, namespace: config.namespace, name: trainJobName(key.job, key.submission) })
}
