// The simulator's HTTP face: a loopback node:http server speaking the Kubernetes REST protocol to the
// real kubectl and client-node, with the simulator's clock following real time through a ticker.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { Duplex } from "node:stream"
import { type ApiResponse, type Outcome, type Resource, statusBody } from "../Api.ts"
import { servedReviews } from "../apiserver/SelfReview.ts"
import type { ServedSimulator } from "./ServedSimulator.ts"
import { coreVersions, groupList, resourceList, versionInfo } from "./Discovery.ts"
import { groupVersionDocument, openApiRoot } from "./OpenApi.ts"
import { type ContainerLog, servePodLog } from "./PodLogs.ts"
import { serveOutcome, sendJson, sendJsonOnSocket } from "./Reply.ts"
import { MessageTables, decodeProtobufBody, isProtobufBody } from "./ProtobufBody.ts"
import type { KindRegistry } from "../kinds/KindRegistry.ts"
import { readBody } from "./RequestBody.ts"
import { type RestCall, type RestInput, decodeRestCall } from "./RestCall.ts"
import { type Route, routeOf, splitTarget } from "./Route.ts"
import { serverTimers } from "./ServerTimers.ts"
import { SimServerError } from "./SimServerError.ts"
import { tableOf } from "./Table.ts"
import { serveWatch } from "./WatchStream.ts"
import type { Writable } from "../Writable.ts"

export type { ServedSimulator }

/** How to start a simulator server. */
export interface SimServerOptions {
  readonly simulator: ServedSimulator
  /** Port to listen on; 0 (the default) picks a free one. */
  readonly port?: number
  /** Loopback only. */
  readonly host?: "127.0.0.1"
  /** Plain http only, for now. */
  readonly tls?: false
  /** How often the simulator's clock is moved to follow real time (default 100 ms). */
  readonly tickMs?: number
  /** Real elapsed time in ms, for the ticker (default `performance.now`); tests may inject their own. */
  readonly realTime?: () => number
}

/** How the HTTP face starts: a server's options and the kinds it routes to (the simulator's own). */
export interface HttpFaceOptions extends SimServerOptions {
  readonly kinds: KindRegistry
  /** The log served for a simulator that does not serve its containers' own. */
  readonly fallbackLog: ContainerLog
}

/** A running simulator server. */
export interface SimServer {
  readonly url: string
  readonly port: number
  /** Stops the ticker, ends every open request and watch, and closes the listening socket. */
  close(): Promise<void>
}

const notFound: ApiResponse = { code: 404, body: statusBody(404, "NotFound", "the server could not find the requested resource") }

const methodNotAllowed: ApiResponse = {
  code: 405,
  body: statusBody(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")
}

const documentFor = (kinds: KindRegistry, route: Route, serverAddress: string): ApiResponse => {
  switch (route.kind) {
    case "version":
      return { code: 200, body: versionInfo() }
    case "coreVersions":
      return { code: 200, body: coreVersions(serverAddress) }
    case "groups":
      return { code: 200, body: groupList(kinds) }
    case "resourceList":
      return { code: 200, body: resourceList(kinds, route.group, route.version) }
    case "openapiRoot":
      return { code: 200, body: openApiRoot(kinds) }
    case "openapiGroupVersion":
      return { code: 200, body: groupVersionDocument(kinds, route.group, route.version) }
    case "openapiV2":
    case "review":
    case "notFound":
    case "resource":
      return notFound
  }
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name]
  return Array.isArray(value) ? value.join(", ") : value
}

const internalError = (error: unknown): Outcome => ({
  kind: "answered",
  response: { code: 500, body: statusBody(500, "InternalError", `an error on the server prevented the request from succeeding: ${String(error)}`) }
})

/** Reads and decodes one REST call; undefined when it was answered already (or the client left). */
const decodeCall = async (tables: MessageTables, req: IncomingMessage, res: ServerResponse, callTarget: RestInput["target"], query: URLSearchParams): Promise<RestCall | undefined> => {
  const body = await readBody(req)
  if (body.kind === "aborted") return undefined
  if (body.kind === "tooLarge") {
    res.shouldKeepAlive = false
    sendJson(res, {
      code: 413,
      body: statusBody(413, "RequestEntityTooLarge", `the request body is ${body.bytes} bytes, over the limit`)
    })
    return undefined
  }
  // A protobuf body (kubectl's typed clients send one for built-in kinds) is read into the JSON object
  // it stands for; the rest of the call is decoded as for a JSON body.
  const protobuf = isProtobufBody(header(req, "content-type")) && body.bytes.length > 0 ? decodeProtobufBody(tables, body.bytes) : undefined
  if (protobuf !== undefined && !protobuf.ok) {
    sendJson(res, protobuf.response)
    return undefined
  }
  // Only the headers sent, set one by one: a spread per optional header costs an object each, per call.
  const input: Writable<RestInput> = { method: req.method ?? "GET", target: callTarget, query, body: "" }
  const authorization = header(req, "authorization")
  if (authorization !== undefined) input.authorization = authorization
  const impersonateUser = header(req, "impersonate-user")
  if (impersonateUser !== undefined) input.impersonateUser = impersonateUser
  const impersonateGroups = req.headersDistinct["impersonate-group"]
  if (impersonateGroups !== undefined) input.impersonateGroups = impersonateGroups
  const contentType = protobuf === undefined ? header(req, "content-type") : "application/json"
  if (contentType !== undefined) input.contentType = contentType
  const accept = header(req, "accept")
  if (accept !== undefined) input.accept = accept
  const userAgent = header(req, "user-agent")
  if (userAgent !== undefined) input.userAgent = userAgent
  input.body = protobuf === undefined ? body.text : JSON.stringify(protobuf.object)
  const decoded = decodeRestCall(input)
  if (!decoded.ok) {
    sendJson(res, decoded.response)
    return undefined
  }
  return decoded.call
}

/** Starts the HTTP face of a simulator serving `kinds` on 127.0.0.1. Rejects with a SimServerError if it cannot listen. */
export const startHttpFace = (options: HttpFaceOptions): Promise<SimServer> => {
  const simulator = options.simulator
  const kinds = options.kinds
  const tables = new MessageTables(kinds)
  const realTime = options.realTime ?? (() => performance.now())
  const { timers, cancelAll } = serverTimers()

  const serve = async (req: IncomingMessage, res: ServerResponse, serverAddress: string): Promise<void> => {
    const target = splitTarget(req.url ?? "/")
    const route = routeOf(kinds, target.path)
    // A wrapper that does not pass reviews on does not serve them.
    if (route.kind === "review" && simulator.selfReview !== undefined) {
      const review = servedReviews(true).find((r) => r.kind === route.review) as Resource
      const decoded = await decodeCall(tables, req, res, { resource: review, version: "v1" }, target.query)
      if (decoded === undefined) return
      if (decoded.request.verb !== "create") return sendJson(res, methodNotAllowed)
      return sendJson(res, simulator.selfReview(route.review, decoded.request.token, decoded.request.body, decoded.request.impersonate))
    }
    if (route.kind !== "resource") {
      const body = await readBody(req)
      if (body.kind === "aborted") return
      sendJson(res, req.method === "GET" || route.kind === "notFound" || route.kind === "review" ? documentFor(kinds, route, serverAddress) : methodNotAllowed)
      return
    }
    if (route.subresource === "log") {
      if (req.method !== "GET") return sendJson(res, methodNotAllowed)
      const token = /^Bearer\s+(\S+)\s*$/i.exec(header(req, "authorization") ?? "")?.[1]
      const user = header(req, "impersonate-user")
      const impersonate = user === undefined ? undefined : { user, groups: req.headersDistinct["impersonate-group"] ?? [] }
      return servePodLog(res, simulator, { version: route.version, namespace: route.namespace ?? "default", name: route.name ?? "", query: target.query, token, impersonate }, timers, options.fallbackLog)
    }
    if (route.subresource === "token") {
      if (req.method !== "POST" || simulator.requestToken === undefined) return sendJson(res, methodNotAllowed)
      // Decoded as a create in the namespace, then addressed to the service account the path names.
      const call = await decodeCall(tables, req, res, { resource: route.resource, version: route.version, ...(route.namespace === undefined ? {} : { namespace: route.namespace }) }, target.query)
      if (call === undefined) return
      return sendJson(res, simulator.requestToken({ ...call.request, name: route.name ?? "" }))
    }
    const callTarget: Writable<RestInput["target"]> = { resource: route.resource, version: route.version }
    if (route.namespace !== undefined) callTarget.namespace = route.namespace
    if (route.name !== undefined) callTarget.name = route.name
    if (route.subresource === "status") callTarget.subresource = "status"
    const call = await decodeCall(tables, req, res, callTarget, target.query)
    if (call === undefined) return
    if (call.request.verb === "watch") {
      try {
        serveWatch(res, simulator, route.resource, call, timers)
      } catch (error) {
        serveOutcome(res, internalError(error), timers, (response) => sendJson(res, response))
      }
      return
    }
    let outcome: Outcome
    try {
      // The answer is only serialised: a simulator that can skip copying it does.
      outcome = simulator.serve !== undefined ? simulator.serve(call.request) : simulator.handle(call.request)
    } catch (error) {
      outcome = internalError(error)
    }
    serveOutcome(res, outcome, timers, (response) => {
      const tabular = call.table !== undefined && response.code < 300
      sendJson(
        res,
        tabular
          ? { ...response, body: tableOf({ resource: route.resource, body: response.body, now: simulator.now(), include: call.table ?? "Metadata", withColumns: true }) }
          : response
      )
    })
  }

  return new Promise((resolve, reject) => {
    // As long as the job service keeps them: a client reusing a connection the server is closing loses its request.
    const server = createServer({ keepAliveTimeout: 65_000 })
    let serverAddress = "127.0.0.1:0"
    server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      serve(req, res, serverAddress).catch((error: unknown) => {
        sendJson(res, { code: 500, body: statusBody(500, "InternalError", String(error)) })
      })
    })
    // CONNECT and protocol upgrades (exec, port-forward, proxies) are served by no resource here: the
    // path is not found, or the method not allowed on it, as for any other method.
    const refuseTunnel = (req: IncomingMessage, socket: Duplex): void => {
      const route = routeOf(kinds, splitTarget(req.url ?? "/").path)
      sendJsonOnSocket(socket, req.method, route.kind === "notFound" ? notFound : methodNotAllowed)
    }
    server.on("connect", refuseTunnel)
    server.on("upgrade", refuseTunnel)
    server.once("error", (error) => reject(new SimServerError("listen", error.message)))
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      serverAddress = `127.0.0.1:${port}`
      const simStart = simulator.now()
      const realStart = realTime()
      const ticker = setInterval(() => simulator.advanceTo(simStart + (realTime() - realStart)), options.tickMs ?? 100)
      let closing: Promise<void> | undefined
      resolve({
        url: `http://${serverAddress}`,
        port,
        close: () => {
          closing ??= new Promise<void>((done, fail) => {
            clearInterval(ticker)
            cancelAll()
            server.close((error) => (error === undefined ? done() : fail(new SimServerError("close", error.message))))
            server.closeAllConnections()
          })
          return closing
        }
      })
    })
  })
}
