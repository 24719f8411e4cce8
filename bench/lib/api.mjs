// The job service's API as a bench calls it: the typed client (@dispatch/client) with one bearer token, any
// refusal a thrown error (a bench that measures failures measures nothing).
import { Effect } from "effect"
import { makeClient, runWithFetch } from "../../packages/client/dist/index.js"

/** A caller of the service at `url` with `token`: `(url, (client) => an Effect of calls) => their answer`. */
export const typedCaller = (token) => (url, program) =>
  runWithFetch(
    Effect.flatMap(makeClient({ baseUrl: url, token }), (client) =>
      Effect.mapError(program(client), (failure) => (failure instanceof Error ? failure : new Error(`refused: ${JSON.stringify(failure)}`)))
    )
  )

/** A bare caller of `<url>/api/v1` with `token`: `(url, method, path, body?) => the JSON answer`. Only for
 * throughput loops, which measure the service (and compare it with a bare server) rather than the client's decoding. */
export const apiCaller = (token) => async (url, method, path, body) => {
  const response = await fetch(`${url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const json = await response.json()
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
  return json
}
