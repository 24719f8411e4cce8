// client-node's HTTP library over node:http and pooled keep-alive agents. client-node's own library is
// node-fetch with the per-request agent its KubeConfig builds: a new connection (and TLS handshake) per
// call, plus node-fetch's stream and header machinery around a few hundred bytes of JSON. This one keeps
// client-node's request building, authentication and answer parsing, and only moves the bytes.
import { type ClientRequest, type IncomingMessage, request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import { type HttpLibrary, type RequestContext, ResponseContext, wrapHttpLibrary } from "@kubernetes/client-node"
import type { KeepAliveAgents } from "./KeepAliveAgents.ts"

// client-node's generated clients read headers as one string per name, lower-cased (as node-fetch gave them).
const headersOf = (response: IncomingMessage): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return headers
}

const bodyOf = (context: RequestContext): string | undefined => {
  const body = context.getBody()
  if (body === undefined || typeof body === "string") return body
  // Only form uploads (no custom-object call makes one) are neither; they would need node-fetch's encoder.
  if (body instanceof URLSearchParams) return body.toString()
  throw new TypeError("KeepAliveHttp sends string and URL-encoded bodies only")
}

// What a call that outlives its timeout fails with; KubeCluster reads the name as "sent, unanswered".
const timedOut = (callMs: number): Error => Object.assign(new Error(`no answer within ${callMs} ms`), { name: "TimeoutError" })

const send = (agents: KeepAliveAgents, callMs: number, context: RequestContext): Promise<ResponseContext> =>
  new Promise((resolve, reject) => {
    const url = context.getUrl()
    const body = bodyOf(context)
    const headers: Record<string, string | number> = { ...context.getHeaders() }
    if (body !== undefined) headers["Content-Length"] = Buffer.byteLength(body)
    const signal = context.getSignal()
    const agent = agents.share(context.getAgent())
    const onResponse = (response: IncomingMessage): void => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      // An answer cut off mid-body (a reset, the call's abort) fails like a request that got none.
      response.on("error", reject)
      response.on("end", () => {
        const data = Buffer.concat(chunks)
        resolve(new ResponseContext(response.statusCode ?? 0, headersOf(response), { text: () => Promise.resolve(data.toString("utf8")), binary: () => Promise.resolve(data) }))
      })
    }
    const options = { method: context.getHttpMethod(), headers, ...(agent === undefined ? {} : { agent }), ...(signal === undefined ? {} : { signal }) }
    const outgoing: ClientRequest = url.startsWith("https:") ? httpsRequest(url, options, onResponse) : httpRequest(url, options, onResponse)
    // A plain timer rather than AbortSignal.timeout: the same effect (the request is destroyed, and the
    // answer too if it is still arriving) for a fraction of the cost per call.
    const timer = setTimeout(() => outgoing.destroy(timedOut(callMs)), callMs)
    outgoing.on("close", () => clearTimeout(timer))
    outgoing.on("error", reject)
    outgoing.end(body)
  })

/** client-node's HttpLibrary over node:http, reusing connections through `agents`; a call with no
 * complete answer within `callMs` fails with a TimeoutError. */
export const keepAliveHttp = (agents: KeepAliveAgents, callMs: number): HttpLibrary =>
  wrapHttpLibrary({ send: (context) => send(agents, callMs, context) })
