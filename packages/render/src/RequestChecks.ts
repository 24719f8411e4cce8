import { isJobId } from "./JobId.ts"
import { preview } from "./Preview.ts"
import type { StartRequest } from "./Wire.ts"

/** The largest generation: G x 10^6 + N must stay an exact integer. */
export const MAX_GENERATION = 18_000_000
/** The largest submission: the name's `-s<N>` suffix has at most six digits. */
export const MAX_SUBMISSION = 999_999

/** The request table's refusals (all ErrInvalid), one reason per bad field. Native is never refused. */
export const requestReasons = (request: StartRequest): Array<string> => {
  const reasons: Array<string> = []
  if (!isJobId(request.job)) reasons.push(`job: ${preview(request.job)} is not a JobID (a ULID: 26 upper-case Crockford base32 characters)`)
  if (request.generation < 0 || request.generation > MAX_GENERATION) {
    reasons.push(`generation: must be 0 to ${MAX_GENERATION}, got ${request.generation}`)
  }
  if (request.submission < 1 || request.submission > MAX_SUBMISSION) {
    reasons.push(`submission: must be 1 to ${MAX_SUBMISSION}, got ${request.submission}`)
  }
  if (request.attempt < 0) reasons.push(`attempt: must not be negative, got ${request.attempt}`)
  return reasons
}
