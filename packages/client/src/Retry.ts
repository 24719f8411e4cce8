/** When the client sends a request again after its connection failed before any answer came. */
import { Duration, Schedule } from "effect"
import { HttpClientError } from "effect/http"
import type { HttpClientRequest } from "effect/http"

/** How often and how patiently the client resends a request whose connection failed. */
export interface RetryPolicy {
  /** Resends after the first attempt; 0 sends each request once. */
  readonly times: number
  /** The wait before the first resend; each later wait doubles it (with jitter). */
  readonly delay: Duration.Input
}

/** Three resends, 100 ms apart and doubling: enough to ride out a connection the server closed as it went idle. */
export const defaultRetryPolicy: RetryPolicy = { times: 3, delay: "100 millis" }

// Methods whose repetition changes nothing more than the first request did (RFC 9110, 9.2.2).
const idempotentMethods: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"])

/** A request is safe to send again when its method is idempotent or it carries an `Idempotency-Key`, under which
 * the service answers a repeat with the first result instead of acting twice. */
export const safeToRepeat = (request: HttpClientRequest.HttpClientRequest): boolean =>
  idempotentMethods.has(request.method) || request.headers["idempotency-key"] !== undefined

/** Only a failed connection is retried (never an answer, whatever its status), and only for a request that is safe
 * to repeat: a POST without a key may have been carried out before the connection broke. */
export const retriable = (error: unknown): boolean =>
  HttpClientError.isHttpClientError(error) && error.reason._tag === "TransportError" && safeToRepeat(error.request)

/** The schedule of resends a policy describes. */
export const retrySchedule = (policy: RetryPolicy) => Schedule.exponential(policy.delay).pipe(Schedule.jittered)
