// The server listener: the service's routes on a node:http server. What node's own HTTP handling answers before
// any route (a malformed request, CONNECT, a method its parser does not know) is answered here in the service's
// error body too.
import type { IncomingMessage, Server } from "node:http"
import { createServer } from "node:http"
import type { Duplex } from "node:stream"
// The module itself, not the package index, which would also load redis, ws and worker support at start-up.
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Effect, Exit, Layer, Result, Scope } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import type { ApiEnvironment } from "./ApiEnvironment.ts"
import { allowHeader, notServed } from "./ErrorAnswers.ts"
import { parseRequestTarget } from "./RequestTarget.ts"
import { serviceLayer } from "./ServiceLayer.ts"
import { errorBody } from "../wire/ErrorBody.ts"
import { MalformedHttp, MethodNotAllowed, refusal, type ServiceProblem } from "../wire/ServiceProblem.ts"

const statusText: Readonly<Record<number, string>> = { 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 431: "Request Header Fields Too Large" }

// One answer written on a raw socket, which is then closed: what node's own HTTP handling never reaches.
const answerOnSocket = (socket: Duplex, problem: ServiceProblem, allow?: string): void => {
  const text = JSON.stringify(errorBody(refusal(problem)))
  const headers = [`content-type: application/json`, `content-length: ${Buffer.byteLength(text)}`, ...(allow === undefined ? [] : [`allow: ${allow}`]), "connection: close"]
  socket.end(`HTTP/1.1 ${problem.status} ${statusText[problem.status] ?? "Error"}\r\n${headers.join("\r\n")}\r\n\r\n${text}`)
}

// What a request line names when node's parser refused its method (`FOO /api/v1/jobs HTTP/1.1`): the method and
// the path, so it can be answered as any method the path does not serve.
const refusedRequestLine = (raw: unknown): { readonly method: string; readonly pathname: string } | undefined => {
  if (!Buffer.isBuffer(raw)) return undefined
  const line = /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}) (\S+) HTTP\/1\.[01]\r?\n/.exec(raw.subarray(0, 8192).toString("latin1"))
  const target = line === null ? undefined : parseRequestTarget(line[2] ?? "")
  return line === null || target === undefined || Result.isFailure(target) ? undefined : { method: line[1] ?? "", pathname: target.success.pathname }
}

// A method no route serves, answered outside the router (CONNECT, or one node's parser does not know): 405 with the
// methods the path is served by, or 404 when nothing is served there.
const answerUnservedMethod = (env: ApiEnvironment, socket: Duplex, method: string, pathname: string): void => {
  const problem = notServed(env.routes, method, pathname)
  answerOnSocket(socket, problem, allowHeader(problem))
}

// Node's parser refused the request (bad request line, header, chunking): answer once on the raw socket and close,
// as node would, but with the service's JSON problem body. A socket already gone gets nothing.
const answerClientError = (env: () => ApiEnvironment) => (error: Error & { readonly code?: string; readonly rawPacket?: unknown }, socket: Duplex): void => {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy()
    return
  }
  const line = error.code === "HPE_INVALID_METHOD" ? refusedRequestLine(error.rawPacket) : undefined
  if (line !== undefined) return answerUnservedMethod(env(), socket, line.method, line.pathname)
  answerOnSocket(socket, new MalformedHttp({ code: error.code ?? "unknown", reason: error.message }))
}

// node:http hands CONNECT (a request to open a tunnel) to 'connect' listeners, and with none closes the connection
// without a word; the service tunnels nothing, so it answers as for any method it does not serve.
const answerConnect = (env: () => ApiEnvironment) => (request: IncomingMessage, socket: Duplex): void => {
  socket.on("error", () => socket.destroy())
  const target = parseRequestTarget(request.url ?? "")
  const pathname = Result.isSuccess(target) ? target.success.pathname : (request.url ?? "")
  const problem = notServed(env().routes, "CONNECT", pathname)
  // A tunnel target (`host:port`) names no path of the service: nothing there allows anything.
  answerOnSocket(socket, problem._tag === "MethodNotAllowed" ? problem : new MethodNotAllowed({ method: "CONNECT", path: pathname, allowed: [] }), allowHeader(problem) ?? "")
}

/** A running HTTP face of the service. */
export interface Listening {
  readonly server: Server
  readonly url: string
  /** Gives the service what it lacked when it began to listen (its database, once open), or a new startup step. */
  readonly update: (more: Partial<Omit<ApiEnvironment, "baseUrl">>) => void
  /** Stops listening, waits for open requests, and frees what the server holds; closing the scope it was made in
   * does it too. A second close waits for the first. */
  readonly close: Effect.Effect<void>
}

/** Serves the API on a node:http server, open in the scope it is made in; the environment's base URL is filled in once
 * it listens. Nothing a client sends can throw out of it: every request ends in an answer or a closed connection. */
export const listening = (env: Omit<ApiEnvironment, "baseUrl">, host: string, port: number): Effect.Effect<Listening, unknown, Scope.Scope> =>
  Effect.gen(function* () {
    const current = { ...env, baseUrl: "" }
    const getEnv = () => current
    // Node's default keep-alive of 5 s closes an idle connection that a client on a busy machine, its own idle timer
    // late, may be sending its next request on at that very moment: the request is lost ("other side closed"). A
    // minute, as common proxies keep, makes that race rare; the client resends what is safe to resend.
    const server = createServer({ keepAliveTimeout: 65_000 })
    server.on("clientError", answerClientError(getEnv))
    server.on("connect", answerConnect(getEnv))
    const app = HttpRouter.serve(serviceLayer(getEnv), { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provideMerge(NodeHttpServer.layer(() => server, { port, host }))
    )
    // A scope of its own inside the caller's, so that it can stop listening before the caller's scope closes.
    const scope = yield* Scope.fork(yield* Effect.scope)
    const context = yield* Effect.onError(Layer.buildWithScope(app as Layer.Layer<HttpServer.HttpServer, unknown>, scope), (cause) => Scope.close(scope, Exit.failCause(cause)))
    const address = Context.get(context, HttpServer.HttpServer).address
    const boundPort = "port" in address ? address.port : port
    current.baseUrl = `http://${host.includes(":") ? `[${host}]` : host}:${boundPort}`
    const close = yield* Effect.cached(Scope.close(scope, Exit.void))
    return { server, url: current.baseUrl, update: (more) => void Object.assign(current, more), close } satisfies Listening
  })
