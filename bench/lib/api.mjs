// The job service's API as a bench calls it: the typed client (@dispatch/client) with one bearer token, any
// refusal a thrown error (a bench that measures failures measures nothing).
import { Effect } from "effect"
import { Agent, request as httpRequest } from "node:http"
import { makeClient, runWithFetch } from "../../packages/client/dist/index.js"

/** A caller of the service at `url` with `token`: `(url, (client) => an Effect of calls) => their answer`. */
export const typedCaller = (token) => (url, program) =>
  runWithFetch(
    Effect.flatMap(makeClient({ baseUrl: url, token }), (client) =>
      Effect.mapError(program(client), (failure) => (failure instanceof Error ? failure : new Error(`refused: ${JSON.stringify(failure)}`)))
    )
  )

// fetch (undici) spends more CPU per call than the service does answering it (web streams, a transferable body per
// request), and the service and client share this process: the throughput loops use node:http with kept-alive
// connections, as lean a client as Node has, so what is measured is the service.
const agent = new Agent({ keepAlive: true, maxSockets: 64 })

/** A bare caller of `<url>/api/v1` with `token`: `(url, method, path, body?) => the JSON answer`. Only for
 * throughput loops, which measure the service (and compare it with a bare server) rather than the client's decoding. */
export const apiCaller = (token) => (url, method, path, body) =>
  new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body)
    const headers = { authorization: `Bearer ${token}`, ...(text === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(text) }) }
    const request = httpRequest(`${url}/api/v1${path}`, { method, agent, headers }, (response) => {
      const chunks = []
      response.on("data", (chunk) => chunks.push(chunk))
      response.on("end", () => {
        try {
          const json = JSON.parse(Buffer.concat(chunks).toString("utf8"))
          if (response.statusCode !== 200) reject(new Error(`${method} ${path}: ${response.statusCode} ${JSON.stringify(json)}`))
          else resolve(json)
        } catch (error) {
          reject(error)
        }
      })
      response.on("error", reject)
    })
    request.on("error", reject)
    request.end(text)
  })
