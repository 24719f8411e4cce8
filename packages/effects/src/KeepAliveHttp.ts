// One HTTP exchange over node:http and a pooled keep-alive agent. client-node's own library is node-fetch
// with the per-request agent its KubeConfig builds: a new connection (and TLS handshake) per call, plus
// node-fetch's stream and header machinery around a few hundred bytes of JSON.
import { type Agent, type ClientRequest, type IncomingMessage, request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import type { KeepAliveAgents } from "./KeepAliveAgents.ts"

/** The server a request goes to: node:http's options for its origin. */
export interface HttpServer {
  readonly protocol: string
  readonly hostname: string
  readonly port?: number
}

/** A request, authenticated already. */
export interface HttpRequest {
  readonly server: HttpServer
  /** The path and query. */
  readonly path: string
  readonly method: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string
  /** The agent client-node's KubeConfig chose (TLS material, proxy); the pool stands in for it. */
  readonly agent?: Agent
}

/** The whole answer. */
export interface HttpAnswer {
  readonly status: number
  readonly text: string
}

// What a call that outlives its timeout fails with; KubeCluster reads the name as "sent, unanswered".
const timedOut = (callMs: number): Error => Object.assign(new Error(`no answer within ${callMs} ms`), { name: "TimeoutError" })

/** Sends `request` and reads the whole answer. Fails with node's error (its `code`, such as ECONNREFUSED or
 * ECONNRESET, says how far it got), or a TimeoutError when no complete answer arrives within `callMs`. */
export const sendRequest = (agents: KeepAliveAgents, callMs: number, request: HttpRequest): Promise<HttpAnswer> =>
  new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...request.headers }
    if (request.body !== undefined) headers["Content-Length"] = Buffer.byteLength(request.body)
    const agent = agents.share(request.agent)
    const onResponse = (response: IncomingMessage): void => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      // An answer cut off mid-body (a reset, the timeout) fails like a request that got none.
      response.on("error", reject)
      response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }))
    }
    const options = { ...request.server, path: request.path, method: request.method, headers, ...(agent === undefined ? {} : { agent }) }
    const outgoing: ClientRequest = request.server.protocol === "https:" ? httpsRequest(options, onResponse) : httpRequest(options, onResponse)
    // A plain timer rather than AbortSignal.timeout: the same effect (the request is destroyed, and the
    // answer too if it is still arriving) for a fraction of the cost per call.
    const timer = setTimeout(() => outgoing.destroy(timedOut(callMs)), callMs)
    outgoing.on("close", () => clearTimeout(timer))
    outgoing.on("error", reject)
    outgoing.end(request.body)
  })

/** How a streamed exchange ended: a 2xx whose body went to `onChunk` (the text is empty), or any other
 * answer, read whole. */
export interface StreamedAnswer {
  readonly status: number
  readonly text: string
}

/**
 * Sends `request` and hands a 2xx answer's body to `onChunk` as it arrives, until it ends or `signal`
 * aborts (then the answer is the one so far). `callMs` bounds the wait for the answer's head only: a
 * followed log may stream for hours. Fails as sendRequest does before the head arrives.
 */
export const streamRequest = (agents: KeepAliveAgents, callMs: number, request: HttpRequest, onChunk: (chunk: string) => void, signal: AbortSignal): Promise<StreamedAnswer> =>
  new Promise((resolve, reject) => {
    const agent = agents.share(request.agent)
    const onResponse = (response: IncomingMessage): void => {
      clearTimeout(timer)
      const status = response.statusCode ?? 0
      const ok = status >= 200 && status < 300
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => (ok ? onChunk(chunk.toString("utf8")) : chunks.push(chunk)))
      response.on("error", (error) => (signal.aborted ? resolve({ status, text: "" }) : reject(error)))
      response.on("end", () => resolve({ status, text: Buffer.concat(chunks).toString("utf8") }))
      response.on("close", () => resolve({ status, text: Buffer.concat(chunks).toString("utf8") }))
    }
    const options = { ...request.server, path: request.path, method: request.method, headers: { ...request.headers }, ...(agent === undefined ? {} : { agent }) }
    const outgoing: ClientRequest = request.server.protocol === "https:" ? httpsRequest(options, onResponse) : httpRequest(options, onResponse)
    const timer = setTimeout(() => outgoing.destroy(timedOut(callMs)), callMs)
    const abort = () => outgoing.destroy()
    if (signal.aborted) abort()
    else signal.addEventListener("abort", abort, { once: true })
    outgoing.on("close", () => {
      clearTimeout(timer)
      signal.removeEventListener("abort", abort)
    })
    outgoing.on("error", (error) => (signal.aborted ? resolve({ status: 0, text: "" }) : reject(error)))
    outgoing.end()
  })
