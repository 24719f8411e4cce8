// The service's routes answering a request in process, without a socket (for tests).
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Fiber, Layer } from "effect"
import { HttpRouter } from "effect/http"
import type { ApiEnvironment } from "./ApiEnvironment.ts"
import { idempotencyHeader } from "./IdempotencyKey.ts"
import type { Route } from "./Route.ts"
import { serviceLayer } from "./ServiceLayer.ts"

/** A request given in process, without a socket: method, path with query string, Authorization and body text. */
export interface ApiRequest {
  readonly method: string
  readonly url: string
  readonly authorization: string | undefined
  readonly body: string
  /** The `Idempotency-Key` header, when sent. */
  readonly idempotencyKey?: string | undefined
}

// One web handler per set of routes, made once: each request carries its own environment in its context, where
// the service reads it (synchronously, in the request's fiber) instead of in a handler made for that environment.
const RequestEnvironment = Context.Reference<ApiEnvironment | undefined>("dispatch/RequestEnvironment", { defaultValue: () => undefined })

const webHandlers = new WeakMap<ReadonlyArray<Route>, (request: Request, context: Context.Context<never>) => Promise<Response>>()

const webHandlerFor = (env: ApiEnvironment) => {
  const made = webHandlers.get(env.routes)
  if (made !== undefined) return made
  // The environment the handler was made with stands in only while its layer is built (the routes it registers).
  const current = () => Fiber.getCurrent()?.getRef(RequestEnvironment) ?? env
  const web = HttpRouter.toWebHandler(serviceLayer(current).pipe(Layer.provide(NodeHttpServer.layerHttpServices)) as Layer.Layer<never, never, HttpRouter.HttpRouter>, {
    disableLogger: true
  })
  const handler = web.handler as (request: Request, context: Context.Context<never>) => Promise<Response>
  webHandlers.set(env.routes, handler)
  return handler
}

/** Answers one request in process with the very routes the server serves (for tests that need no socket). */
export const handleApiRequest = async (env: ApiEnvironment, request: ApiRequest): Promise<{ readonly status: number; readonly body: unknown }> => {
  const handler = webHandlerFor(env)
  const hasBody = request.method !== "GET" && request.method !== "HEAD"
  const response = await handler(
    new Request(`http://in-process${request.url}`, {
      method: request.method,
      headers: {
        ...(request.authorization === undefined ? {} : { authorization: request.authorization }),
        ...(hasBody ? { "content-type": "application/json" } : {}),
        ...(request.idempotencyKey === undefined ? {} : { [idempotencyHeader]: request.idempotencyKey })
      },
      ...(hasBody ? { body: request.body } : {})
    }),
    Context.make(RequestEnvironment, env)
  )
  const text = await response.text()
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
}
