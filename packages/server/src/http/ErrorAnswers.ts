// The service's answers in Dioptra's error body: a refusal, a failure while answering, and a request for a path or
// method nothing serves (404, or 405 with Allow).
import { Result } from "effect"
import { HttpServerResponse } from "effect/http"
import { apiPrefix } from "./Api.ts"
import type { Route } from "./Route.ts"
import { findRoute } from "./Router.ts"
import { webAssetsPrefix, webIndexPath } from "./WebApp.ts"
import { DatabaseError, foreignKeyViolation, uniqueViolation } from "../store/Database.ts"
import { errorBody, refusalStatus } from "../wire/ErrorBody.ts"
import { InternalError, MethodNotAllowed, refusal, RouteNotFound, WriteConflict, type Refusal } from "../wire/ServiceProblem.ts"

/** A JSON answer with a status. */
export const jsonAnswer = (status: number, body: unknown): HttpServerResponse.HttpServerResponse => {
  let text: string
  try {
    text = JSON.stringify(body)
  } catch (cause) {
    return jsonAnswer(500, errorBody(refusal(new InternalError({ reason: cause instanceof Error ? cause.message : String(cause) }))))
  }
  return HttpServerResponse.text(text, { status, contentType: "application/json" })
}

/** A refusal answered: its status and error body. */
export const refused = (r: Refusal) => jsonAnswer(refusalStatus(r), errorBody(r))

// A lost race on a unique value, or on a row another request deleted meanwhile (an entrypoint snapshot retention let
// go as a job was made from it), is the client's conflict to retry; every other database failure is the service's (500).
// Anything else thrown is a defect of the service: logged whole, answered without its internal text.
/** What a failure while answering (not a refusal) is answered as. */
export const failureOf = (cause: unknown, log?: (line: string) => void): Refusal => {
  if (cause instanceof DatabaseError) {
    return refusal(cause.code === uniqueViolation || cause.code === foreignKeyViolation ? new WriteConflict({ reason: cause.reason }) : cause)
  }
  log?.(`the service failed while answering: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}`)
  return refusal(new InternalError({ reason: "it failed while answering (the service's log says why); a creation that failed stored nothing" }))
}

/** The paths served outside the declared API, each by GET alone. */
const servedByGet = (pathname: string): boolean =>
  pathname === apiPrefix || pathname === "/healthz" || pathname === "/readyz" || pathname === "/metrics" || pathname === `${apiPrefix}/openapi.json` ||
  pathname === `${apiPrefix}/docs` || pathname === webIndexPath || pathname.startsWith(webAssetsPrefix)

/** Why a method is not answered on a path: 404 when nothing is served there, else 405 naming what is. */
export const notServed = (routes: ReadonlyArray<Route>, method: string, pathname: string): RouteNotFound | MethodNotAllowed => {
  if (servedByGet(pathname)) return new MethodNotAllowed({ method, path: pathname, allowed: ["GET"] })
  if (!pathname.startsWith(`${apiPrefix}/`)) return new RouteNotFound({ path: pathname })
  const found = findRoute(routes, method, pathname.slice(apiPrefix.length))
  return Result.isFailure(found) ? found.failure : new MethodNotAllowed({ method, path: pathname, allowed: [] })
}

/** The `Allow` header a 405 carries: the methods the path is served by (RFC 9110, section 10.2.1). */
export const allowHeader = (problem: RouteNotFound | MethodNotAllowed): string | undefined =>
  problem._tag === "MethodNotAllowed" ? [...new Set(problem.allowed)].sort((a, b) => methodOrder.indexOf(a) - methodOrder.indexOf(b)).join(", ") : undefined

const methodOrder = ["GET", "POST", "PUT", "DELETE"]

/** The answer to a path or method nothing serves. */
export const notServedAnswer = (problem: RouteNotFound | MethodNotAllowed) => {
  const answer = refused(refusal(problem))
  const allow = allowHeader(problem)
  return allow === undefined ? answer : HttpServerResponse.setHeader(answer, "allow", allow)
}

