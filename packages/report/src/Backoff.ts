// How long to wait before sending a batch again: exponential backoff with full jitter (a uniformly random wait up
// to a ceiling that doubles with each attempt, so many reporters that failed together do not retry together),
// never sooner than the service's Retry-After, and never longer than the largest backoff.

/** The backoff's base and its largest wait, in milliseconds. */
export interface BackoffSettings {
  readonly backoffMs: number
  readonly maxBackoffMs: number
}

/** The ceiling of the random wait before retry number `attempt` (from 0): the base doubled `attempt` times, at most the largest. */
export const backoffCeilingMs = (attempt: number, settings: BackoffSettings): number =>
  Math.max(0, Math.min(settings.maxBackoffMs, settings.backoffMs * 2 ** attempt))

/** The wait before retry `attempt`: `unit` (uniform in [0, 1)) of its ceiling, raised to the Retry-After the service
 * asked for (itself at most the largest backoff). */
export const retryDelayMs = (attempt: number, settings: BackoffSettings, unit: number, retryAfterMs?: number): number => {
  const jittered = unit * backoffCeilingMs(attempt, settings)
  return retryAfterMs === undefined ? jittered : Math.max(jittered, Math.min(retryAfterMs, Math.max(0, settings.maxBackoffMs)))
}
