// Every call the page makes goes through the typed client (@dispatch/client), built from the API's declaration:
// a renamed field or endpoint is a type error here, not a blank page. A session cookie travels by itself (same
// origin); a pasted bearer token is kept in sessionStorage, for this tab only.
import { makeClient, type DispatchClient } from "@dispatch/client"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"

const tokenKey = "dispatch.token"

/** The bearer token pasted in this tab, if any. */
export const storedToken = (): string | undefined => sessionStorage.getItem(tokenKey) ?? undefined

/** Keeps (or with undefined forgets) the bearer token of this tab. */
export const storeToken = (token: string | undefined): void => {
  if (token === undefined) sessionStorage.removeItem(tokenKey)
  else sessionStorage.setItem(tokenKey, token)
  client = undefined
}

let client: DispatchClient | undefined

const current = (): DispatchClient => {
  if (client !== undefined) return client
  const token = storedToken()
  const made = Effect.runSync(Effect.provide(makeClient({ baseUrl: location.origin, ...(token === undefined ? {} : { token }) }), FetchHttpClient.layer))
  client = made
  return made
}

/** A refused or failed call: the HTTP status (0 when none came back) and what the service said. */
export class CallError extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message)
  }
}

/** Called when a call is refused as unauthenticated: the page goes to the login form. */
let onUnauthenticated: () => void = () => undefined

/** Sets what happens when the service says the caller is not logged in. */
export const whenUnauthenticated = (f: () => void): void => {
  onUnauthenticated = f
}

const describe = (error: unknown): CallError => {
  if (typeof error === "object" && error !== null) {
    const e = error as { readonly error?: unknown; readonly message?: unknown; readonly response?: { readonly status?: number } }
    if (typeof e.error === "string") {
      const status = e.error === "Unauthenticated" ? 401 : 400
      return new CallError(status, typeof e.message === "string" ? e.message : e.error)
    }
    if (e.response?.status !== undefined) return new CallError(e.response.status, `the service answered ${e.response.status}`)
    if (typeof e.message === "string") return new CallError(0, e.message)
  }
  return new CallError(0, String(error))
}

/** Runs one call of the typed client; a refusal rejects with a `CallError` saying what the service answered. */
export const call = <A, E>(f: (client: DispatchClient) => Effect.Effect<A, E>): Promise<A> =>
  Effect.runPromise(Effect.mapError(Effect.suspend(() => f(current())), describe)).catch((cause: unknown) => {
    const error = cause instanceof CallError ? cause : describe(cause)
    if (error.status === 401) onUnauthenticated()
    throw error
  })
