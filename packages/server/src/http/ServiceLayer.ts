// The service over HTTP as one layer: the declared API (admitted by Admission.ts, answered by Handlers.ts), the
// routes beside it, its docs page, and what every request gets: a request id, metrics, an access log line, and an
// answer in the service's error body for whatever the router could not place.
import { randomUUID } from "node:crypto"
import { ByteSize, Cause, Effect, Layer, Option, Result } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder, HttpApiSwagger } from "effect/http-api"
import { authorizationLayer } from "./Admission.ts"
import { apiPrefix, DispatchApi } from "./Api.ts"
import { maxBodyBytes, type ApiEnvironment } from "./ApiEnvironment.ts"
import { errorBody } from "../wire/ErrorBody.ts"
import { jsonAnswer, notServed, notServedAnswer, refused } from "./ErrorAnswers.ts"
import { groupLayers } from "./Handlers.ts"
import { IdempotentAnswers } from "./Idempotency.ts"
import { publicRoutes } from "./PublicRoutes.ts"
import { parseRequestTarget } from "./RequestTarget.ts"
import { findRoute } from "./Router.ts"
import { webAssetsPrefix, webIndexPath } from "./WebApp.ts"
import { accessLine, requestIdOf } from "../ops/AccessLog.ts"
import { recordRequest } from "../ops/Metrics.ts"
import { startupReason, type StartupStep } from "../ops/Readiness.ts"
import { InternalError, refusal, RouteNotFound, ServiceStarting } from "../wire/ServiceProblem.ts"
// What a starting service answers without its database: the process's health, its readiness, the API's index,
// document and docs page, and the web page (whose calls wait, as every API call does, for the service to serve).
const answeredWhileStarting = (route: string) =>
  route === "/healthz" || route === "/readyz" || route === apiPrefix || route === `${apiPrefix}/openapi.json` || route === `${apiPrefix}/docs` ||
  route === webIndexPath || route === webAssetsPrefix || route === "unmatched"

/** Seconds a client told the service is starting waits before asking again. */
export const startingRetryAfterSeconds = 1

// A starting service's answer to a request that needs the database: a 503 naming the step, with Retry-After. The
// body is read first (within the size limit), so the client finishes sending before the answer.
const whileStarting = (request: HttpServerRequest.HttpServerRequest, step: StartupStep) =>
  Effect.ignore(request.text.pipe(Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(maxBodyBytes)))).pipe(
    Effect.as(HttpServerResponse.setHeader(refused(refusal(new ServiceStarting({ step, reason: startupReason(step) }))), "retry-after", String(startingRetryAfterSeconds)))
  )

/** The route template a request is counted under: the endpoint's path, or what else it reached. */
const routeLabel = (env: ApiEnvironment, method: string, pathname: string): string => {
  if (pathname === apiPrefix || pathname === "/healthz" || pathname === "/readyz" || pathname === "/metrics") return pathname
  if (pathname === `${apiPrefix}/openapi.json` || pathname === `${apiPrefix}/docs` || pathname === webIndexPath) return pathname
  if (pathname.startsWith(webAssetsPrefix)) return webAssetsPrefix
  if (!pathname.startsWith(`${apiPrefix}/`)) return "unmatched"
  const found = findRoute(env.routes, method, pathname.slice(apiPrefix.length))
  return Result.isSuccess(found) ? `${apiPrefix}${found.success.route.path}` : "unmatched"
}

// The router's own refusal of a request no route of it matches, told by its tag.
const routeNotFound = (cause: Cause.Cause<unknown>): boolean => {
  const error = Cause.findErrorOption(cause)
  return Option.isSome(error) && HttpServerError.isHttpServerError(error.value) && error.value.reason._tag === "RouteNotFound"
}

// Whatever the router could not place (or a defect) still answers in the service's error body: a bad request
// target 400, an unknown path 404, a known path with another method 405 with `Allow`, anything else 500.
const answerOf = (env: () => ApiEnvironment, method: string, originalUrl: string, httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, never>) => {
  const target = parseRequestTarget(originalUrl)
  if (Result.isFailure(target)) return Effect.succeed(refused(refusal(target.failure)))
  const pathname = target.success.pathname
  // The router reads `a//b` as `a/b`; the API's paths are canonical, so an empty segment names nothing.
  if (pathname.includes("//")) return Effect.succeed(refused(refusal(new RouteNotFound({ path: pathname }))))
  return httpEffect.pipe(
    Effect.catchCause((cause) => {
      if (routeNotFound(cause)) return Effect.succeed(notServedAnswer(notServed(env().routes, method, pathname)))
      return Effect.succeed(jsonAnswer(500, errorBody(refusal(new InternalError({ reason: String(cause) })))))
    })
  )
}

// Every request: its answer (as above), its request id echoed in X-Request-Id, its metrics and its log line.
const answerEverything = (env: () => ApiEnvironment): Layer.Layer<never, never, HttpRouter.HttpRouter> =>
  // Typed loosely: a global middleware that handles every error is what effect's types reserve for declared errors.
  (HttpRouter.middleware as unknown as (fn: (e: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, never>) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest>, options: { readonly global: true }) => Layer.Layer<never, never, HttpRouter.HttpRouter>)(
    (httpEffect) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const started = performance.now()
        const requestId = requestIdOf(request.headers["x-request-id"], randomUUID)
        const current = env()
        const target = parseRequestTarget(request.originalUrl)
        const path = Result.isSuccess(target) ? target.success.pathname : request.originalUrl
        const route = routeLabel(current, request.method, path)
        const step = current.starting?.()
        const response = yield* step === undefined || answeredWhileStarting(route) ? answerOf(env, request.method, request.originalUrl, httpEffect) : whileStarting(request, step)
        const ms = performance.now() - started
        yield* recordRequest(route, response.status, ms / 1000)
        current.accessLog?.write(
          accessLine(current.accessLog.format, { time: new Date().toISOString(), requestId, method: request.method, path, route, status: response.status, ms })
        )
        return HttpServerResponse.setHeader(response, "x-request-id", requestId)
      }),
    { global: true }
  )

/** Every route of the service: the declared API, its document, the API index and the docs page. */
export const serviceLayer = (env: () => ApiEnvironment) =>
  Layer.mergeAll(
    HttpApiBuilder.layer(DispatchApi).pipe(Layer.provide(groupLayers(env, new IdempotentAnswers())), Layer.provide(authorizationLayer(env))),
    publicRoutes(env),
    HttpApiSwagger.layer(DispatchApi, { path: `${apiPrefix}/docs` }),
    answerEverything(env)
  )

