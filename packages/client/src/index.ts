/** @dispatch/client: a typed client of the dispatch job service, derived from the declaration the service serves. */
import { Effect } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { DispatchApi } from "@dispatch/server/api"

export { DispatchApi } from "@dispatch/server/api"

/** Where the service is and who calls it. */
export interface ClientOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:8080` (the API is under `/api/v1`). */
  readonly baseUrl: string
  /** A bearer token (a user's, a group's or a job's report token); none sends no Authorization header. */
  readonly token?: string
}

/** A client of every endpoint, grouped as declared (`client.jobs.create(...)`); needs an `HttpClient`. A refused
 * request fails with the service's error body (`{error, message, detail}`), typed. */
export const makeClient = (options: ClientOptions) => {
  const { token } = options
  return HttpApiClient.make(DispatchApi, {
    baseUrl: options.baseUrl,
    ...(token === undefined ? {} : { transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(token)) })
  })
}

/** A client of the job service. */
export type DispatchClient = Effect.Success<ReturnType<typeof makeClient>>

/** Runs a program that uses the client over the global `fetch`. */
export const runWithFetch = <A, E>(program: Effect.Effect<A, E, HttpClient.HttpClient>): Promise<A> =>
  Effect.runPromise(Effect.provide(program, FetchHttpClient.layer))
