/** @dispatch/client: a typed client of the dispatch job service, derived from the declaration the service serves. */
import { Context, Effect } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { DispatchApi } from "@dispatch/server/api"
import { defaultRetryPolicy, retriable, retrySchedule, type RetryPolicy } from "./Retry.ts"

export { DispatchApi } from "@dispatch/server/api"
export { defaultRetryPolicy, safeToRepeat, type RetryPolicy } from "./Retry.ts"

/** Where the service is and who calls it. */
export interface ClientOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:8080` (the API is under `/api/v1`). */
  readonly baseUrl: string
  /** A bearer token (a user's, a group's or a job's report token); none sends no Authorization header. */
  readonly token?: string
  /** How a request whose connection failed before an answer is resent (only requests safe to repeat: idempotent
   * methods, and creations sent with an Idempotency-Key); `defaultRetryPolicy` unless given. */
  readonly retry?: RetryPolicy
}

/** A client of every endpoint, grouped as declared (`client.jobs.create(...)`); needs an `HttpClient`. A refused
 * request fails with the service's error body (`{error, message, detail}`), typed. */
export const makeClient = (options: ClientOptions) => {
  const { token } = options
  const authorized = token === undefined ? (request: HttpClientRequest.HttpClientRequest) => request : HttpClientRequest.bearerToken(token)
  const retry = options.retry ?? defaultRetryPolicy
  return HttpApiClient.make(DispatchApi, {
    baseUrl: options.baseUrl,
    transformClient: (client) =>
      client.pipe(
        HttpClient.retry({ while: retriable, times: retry.times, schedule: retrySchedule(retry) }),
        HttpClient.mapRequestEffect((request) =>
          Effect.gen(function* () {
            const key = yield* IdempotencyKey
            return authorized(key === undefined ? request : HttpClientRequest.setHeader(request, "idempotency-key", key))
          })
        )
      )
  })
}

// The key travels in the calling fiber's context rather than as a declared `headers` argument: effect's typed
// client makes a declared headers schema a required argument of every call, even when each header is optional.
/** The `Idempotency-Key` the client's calls send; none by default. Set it with `withIdempotencyKey`. */
export const IdempotencyKey = Context.Reference<string | undefined>("@dispatch/client/IdempotencyKey", { defaultValue: () => undefined })

/** Sends `key` as the `Idempotency-Key` of the call `effect` makes, so retrying the same creation with the same key
 * within 24 hours answers the first result instead of creating again (the same key with another body is refused,
 * 422). Wrap one creation per key; endpoints that create nothing ignore the header. */
export const withIdempotencyKey =
  (key: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.provideService(effect, IdempotencyKey, key)

/** A client of the job service. */
export type DispatchClient = Effect.Success<ReturnType<typeof makeClient>>

/** Runs a program that uses the client over the global `fetch`. */
export const runWithFetch = <A, E>(program: Effect.Effect<A, E, HttpClient.HttpClient>): Promise<A> =>
  Effect.runPromise(Effect.provide(program, FetchHttpClient.layer))
