// When a job that met a passing fault is tried again, and when it has been tried enough. Pure: the random draw
// and the clock are inputs, so every law can be checked for every draw.

/** How the service spaces and bounds a job's retries. */
export interface RetryPolicy {
  /** The cap of the first retry's delay, in ms; each later attempt doubles it. */
  readonly baseMs: number
  /** The largest cap a delay ever has, in ms. */
  readonly maxMs: number
  /** Attempts after which a job that meets another passing fault fails (every attempt's reason kept). */
  readonly maxAttempts: number
  /** Time from the first attempt after which a job that meets another passing fault fails, in ms. */
  readonly maxElapsedMs: number
}

/** The default policy: delays capped at 1 s doubling to 5 min, at most 12 attempts within 24 h. */
export const defaultRetryPolicy: RetryPolicy = { baseMs: 1000, maxMs: 300_000, maxAttempts: 12, maxElapsedMs: 86_400_000 }

/** The cap of the delay after `attempt` attempts (attempt >= 1): `baseMs * 2^(attempt-1)`, at most `maxMs`. */
export const retryCapMs = (policy: RetryPolicy, attempt: number): number => {
  const exponent = Math.max(0, Math.min(attempt - 1, 52))
  return Math.min(policy.maxMs, policy.baseMs * 2 ** exponent)
}

// Full jitter (a uniform draw below the cap) spreads the retries of many jobs that failed together; a server's
// Retry-After is a floor, never shortened by the draw.
/** The delay before the next attempt after `attempt` attempts: `draw` (uniform in [0, 1)) times the cap, and at
 * least the server's Retry-After when it gave one. */
export const retryDelayMs = (policy: RetryPolicy, attempt: number, draw: number, retryAfterMs?: number): number => {
  const jittered = Math.floor(Math.min(Math.max(draw, 0), 1) * retryCapMs(policy, attempt))
  return Math.max(jittered, retryAfterMs ?? 0)
}

/** Whether a job may be tried again after `attempts` attempts, the first at `firstAtMs`, now `nowMs`. */
export const withinBudget = (policy: RetryPolicy, attempts: number, firstAtMs: number, nowMs: number): boolean =>
  attempts < policy.maxAttempts && nowMs - firstAtMs < policy.maxElapsedMs
