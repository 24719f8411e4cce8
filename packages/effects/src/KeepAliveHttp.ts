// One HTTP exchange over a pooled keep-alive undici dispatcher (node:http with client-node's agent when that
// agent is a proxy's). client-node's own library is node-fetch with the per-request agent its KubeConfig
// builds: a new connection (and TLS handshake) per call, plus node-fetch's stream and header machinery
// around a few hundred bytes of JSON.
import { type Agent, type ClientRequest, type IncomingMessage, request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import type { Dispatcher } from "undici"
import type { KeepAliveAgents } from "./KeepAliveAgents.ts"
import type { TlsOptions } from "./KubeCredentials.ts"

/** The server a request goes to: its origin, and node:http's options for it. */
export interface HttpServer {
  /** `https://host:port`, as undici takes it. */
  readonly origin: string
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
  /** The TLS options client-node's KubeConfig gave the request; the pool's connections are made with them. */
  readonly tls: TlsOptions
  /** The agent client-node's KubeConfig made for the request: a stream goes over it, and when
   * `proxied` every request does; otherwise the pool stands in for it. */
  readonly agent?: Agent
  readonly proxied?: boolean
}

/** The whole answer. */
export interface HttpAnswer {
  readonly status: number
  readonly text: string
  /** The Retry-After header of a failed answer (429, 503), when the server sent one. */
  readonly retryAfter?: string
}

/** The Retry-After value among undici's raw headers (name, value, name, value...); only a failure's are searched. */
export const retryAfterIn = (raw: ReadonlyArray<Buffer | string> | null | undefined): string | undefined => {
  if (raw === null || raw === undefined) return undefined
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (String(raw[i]).toLowerCase() === "retry-after") return String(raw[i + 1])
  }
  return undefined
}

/** Whether an answer's code is not a 2xx: only such an answer's Retry-After is kept. */
export const isFailureCode = (status: number): boolean => status < 200 || status >= 300

// What a call that outlives its timeout fails with; KubeCluster reads the name as "sent, unanswered".
const timedOut = (callMs: number): Error => Object.assign(new Error(`no answer within ${callMs} ms`), { name: "TimeoutError" })

// An answer's bytes as text. Most answers arrive in one chunk, which is decoded as it is rather than copied first.
const textOf = (chunks: ReadonlyArray<Buffer>): string => (chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8"))

/** Where an exchange's outcome goes: the whole answer, or what failed before one arrived. A call hands
 * these to the exchange rather than awaiting a promise: one promise and one turn of the microtask queue
 * less per call, on the path every API call takes. */
export interface HttpOutcome {
  readonly onAnswer: (answer: HttpAnswer) => void
  readonly onError: (error: unknown) => void
}

// The same exchange over undici, through its handler interface: the answer's bytes are collected as they
// arrive, with no stream, signal or header object made per call. The timeout aborts the request (and the
// answer if it is arriving); one that fires before the request reached a connection aborts it there.
const sendOver = (dispatcher: Dispatcher, callMs: number, request: HttpRequest, outcome: HttpOutcome): void => {
  let status = 0
  let retryAfter: string | undefined
  const chunks: Array<Buffer> = []
  let abort: ((reason: Error) => void) | undefined
  let settled = false
  const fail = (error: Error): void => {
    if (settled) return
    settled = true
    clearTimeout(timer)
    outcome.onError(error)
  }
  const timer = setTimeout(() => {
    const error = timedOut(callMs)
    abort?.(error)
    fail(error)
  }, callMs)
  const handler: Dispatcher.DispatchHandlers = {
    onConnect: (abortRequest) => {
      if (settled) abortRequest(timedOut(callMs))
      else abort = abortRequest
    },
    onHeaders: (statusCode, rawHeaders) => {
      status = statusCode
      if (isFailureCode(statusCode)) retryAfter = retryAfterIn(rawHeaders)
      return true
    },
    onData: (chunk) => {
      chunks.push(chunk)
      return true
    },
    onComplete: () => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      const answer: HttpAnswer = retryAfter === undefined ? { status, text: textOf(chunks) } : { status, text: textOf(chunks), retryAfter }
      // undici frees the connection for the next request on a setImmediate it schedules just after this
      // callback (with one request per connection): answering after that one lets a call that follows
      // reuse the connection rather than open another.
      queueMicrotask(() => setImmediate(() => outcome.onAnswer(answer)))
    },
    onError: fail
  }
  dispatcher.dispatch({ origin: request.server.origin, path: request.path, method: request.method as Dispatcher.HttpMethod, headers: request.headers, body: request.body ?? null }, handler)
}

// Over node:http with the agent as given (a proxy's).
const sendOverAgent = (callMs: number, request: HttpRequest, outcome: HttpOutcome): void => {
  const headers: Record<string, string | number> = { ...request.headers }
  if (request.body !== undefined) headers["Content-Length"] = Buffer.byteLength(request.body)
  // The request and the answer both report errors; only the first outcome counts.
  let settled = false
  const answer = (answered: HttpAnswer): void => {
    if (settled) return
    settled = true
    outcome.onAnswer(answered)
  }
  const fail = (error: unknown): void => {
    if (settled) return
    settled = true
    outcome.onError(error)
  }
  const onResponse = (response: IncomingMessage): void => {
    const chunks: Array<Buffer> = []
    response.on("data", (chunk: Buffer) => chunks.push(chunk))
    // An answer cut off mid-body (a reset, the timeout) fails like a request that got none.
    response.on("error", fail)
    response.on("end", () => {
      const status = response.statusCode ?? 0
      const retryAfter = isFailureCode(status) ? response.headers["retry-after"] : undefined
      const text = Buffer.concat(chunks).toString("utf8")
      answer(retryAfter === undefined ? { status, text } : { status, text, retryAfter })
    })
  }
  const outgoing = nodeRequest(request, headers, onResponse)
  // A plain timer rather than AbortSignal.timeout: the same effect (the request is destroyed, and the
  // answer too if it is still arriving) for a fraction of the cost per call.
  const timer = setTimeout(() => outgoing.destroy(timedOut(callMs)), callMs)
  outgoing.on("close", () => clearTimeout(timer))
  outgoing.on("error", fail)
  outgoing.end(request.body)
}

const nodeRequest = (request: HttpRequest, headers: Record<string, string | number>, onResponse: (response: IncomingMessage) => void): ClientRequest => {
  const { protocol, hostname, port } = request.server
  const options = { protocol, hostname, ...(port === undefined ? {} : { port }), path: request.path, method: request.method, headers, ...(request.agent === undefined ? {} : { agent: request.agent }) }
  return protocol === "https:" ? httpsRequest(options, onResponse) : httpRequest(options, onResponse)
}

/** Sends `request` and hands the whole answer to `outcome`. What fails is the transport's error (its
 * `code`, such as ECONNREFUSED or UND_ERR_SOCKET, says how far it got), or a TimeoutError when no complete
 * answer arrives within `callMs`. May throw before anything is sent (a header undici refuses). */
export const sendRequest = (agents: KeepAliveAgents, callMs: number, request: HttpRequest, outcome: HttpOutcome): void => {
  if (request.proxied === true) sendOverAgent(callMs, request, outcome)
  else sendOver(agents.share(request.server.protocol, request.tls), callMs, request, outcome)
}

/** How a streamed exchange ended: a 2xx whose body went to `onChunk` (the text is empty), or any other
 * answer, read whole. */
export interface StreamedAnswer {
  readonly status: number
  readonly text: string
}

/**
 * Sends `request` and hands a 2xx answer's body to `onChunk` as it arrives, until it ends or `signal`
 * aborts (then the answer is the one so far). `callMs` bounds the wait for the answer's head only: a
 * followed log may stream for hours. Fails as sendRequest does before the head arrives. A stream holds its
 * connection for as long as it lasts, so it goes over node:http with client-node's own agent, not the pool.
 */
export const streamRequest = (callMs: number, request: HttpRequest, onChunk: (chunk: string) => void, signal: AbortSignal): Promise<StreamedAnswer> =>
  new Promise((resolve, reject) => {
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
    const outgoing = nodeRequest(request, { ...request.headers }, onResponse)
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
