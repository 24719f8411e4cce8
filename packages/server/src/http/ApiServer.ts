// The job service over HTTP: the declared API (Api.ts) served by effect's HttpApiBuilder on a node:http server
// (@effect/platform-node). What the builder does not decide the service's way is done here, once for every
// endpoint: authorization and decoding happen in the Authorization middleware, in the order Dioptra clients
// expect (401/403 before 400), with every problem named in Dioptra's error body; unknown paths, other methods,
// bad request targets and malformed HTTP also answer with that body.
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { Duplex } from "node:stream"
import { malformedTexts, parseResourceId, textFlaw, type QueueBackend } from "@dispatch/jobs"
// The module itself, not the package index, which would also load redis, ws and worker support at start-up.
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { ByteSize, Context, Effect, Exit, Fiber, Layer, Option, Result, Scope } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder, HttpApiSwagger, OpenApi } from "effect/http-api"
import { AdmittedRequest, apiPrefix, Authorization, DispatchApi } from "./Api.ts"
import { isCanonicalId } from "../wire/ApiSchemas.ts"
import { authenticate, type Credential, type Principal, type TokenEntry } from "./Auth.ts"
import { DatabaseError, foreignKeyViolation, uniqueViolation, type Database } from "../store/Database.ts"
import { errorBody, refusalStatus } from "../wire/ErrorBody.ts"
import { IdempotentAnswers, joined, type KeyedAnswer } from "./Idempotency.ts"
import { idempotencyHeader, parseIdempotencyKey } from "./IdempotencyKey.ts"
import type { JobControl } from "../dispatch/JobControl.ts"
import { accessLine, requestIdOf, type LogFormat } from "../ops/AccessLog.ts"
import { metricsText, recordRequest } from "../ops/Metrics.ts"
import { readiness, startingReadiness, startupReason, type DispatcherState, type StartupStep } from "../ops/Readiness.ts"
import { crowdedFields, defaultLimits, maxBodyItems, oversizedFields, type AnswerLimits } from "../wire/Limits.ts"
import { isReportToken, reportTokenJob } from "./ReportToken.ts"
import { isJsonContentType, jsonDepth, maxJsonDepth } from "./RequestBody.ts"
import { decodePart } from "./RequestDecoding.ts"
import { parseRequestTarget } from "./RequestTarget.ts"
import type { Route } from "./Route.ts"
import {
  AnswerLimitsService,
  Caller,
  ClientAddress,
  Control,
  DefectLog,
  Links,
  RequestDatabase,
  ServiceClock,
  ServiceSettings,
  SetCookie,
  type RequestServices
} from "./RequestServices.ts"
import { runOn } from "../store/DatabaseBridge.ts"
import type { SqlClient } from "effect/sql"
import { findRoute } from "./Router.ts"
import { groupIdOf } from "../store/Groups.ts"
import { sessionTokenOf, sessionUser } from "./Sessions.ts"
import { webAnswer, webAssetsPrefix, webFilesAt, webIndexPath } from "./WebApp.ts"
import { webRoot } from "@dispatch/web"
import {
  BodyTooLarge,
  FieldTooLarge,
  Forbidden,
  InternalError,
  InvalidRequest,
  JsonTooDeep,
  MalformedHttp,
  MalformedJson,
  MethodNotAllowed,
  refusal,
  refusalOf,
  RouteNotFound,
  ResourceNotFound,
  ServiceStarting,
  TooManyItems,
  Unauthenticated,
  UnsupportedMediaType,
  WriteConflict,
  type Refusal,
  type ServiceProblem
} from "../wire/ServiceProblem.ts"

export { apiPrefix } from "./Api.ts"

/** The largest request body accepted, in bytes. */
export const maxBodyBytes = 8 * 1024 * 1024

/** Everything the service needs: the routes, the tokens, the database, the clock and the public base URL. */
export interface ApiEnvironment {
  readonly routes: ReadonlyArray<Route>
  /** The OpenAPI document, made at its first use. */
  readonly openApi: () => unknown
  readonly tokens: ReadonlyArray<TokenEntry>
  readonly db: Database
  readonly now: () => string
  readonly baseUrl: string
  /** The dispatcher's controls, read at each request (the dispatcher starts once the service listens). */
  readonly control?: () => JobControl | undefined
  /** The secret job report tokens are checked against; without it no report token is accepted. */
  readonly reportSecret?: string
  /** Size limits; `defaultLimits` when absent. */
  readonly limits?: AnswerLimits
  /** Whether the dispatcher runs, for `/readyz`; `off` when absent. */
  readonly dispatcher?: () => DispatcherState
  /** Whether users may sign up (`POST /users`); off when absent. */
  readonly signup?: boolean
  /** The backend queues registered without one get (`--default-backend`). */
  readonly defaultBackend?: QueueBackend
  /** The group users who sign up join; `public` when absent. */
  readonly signupGroup?: string
  /** Where one line per answered request goes, and in which format; no access log when absent. */
  readonly accessLog?: { readonly format: LogFormat; readonly write: (line: string) => void }
  /** The directory of the built web page served at `/`; @dispatch/web's build when absent. */
  readonly webRoot?: string
  /** What the service is still doing before it serves its API (its database is not open yet, say); it serves
   * when this is absent or answers undefined. Until then every request that needs the database answers 503. */
  readonly starting?: () => StartupStep | undefined
  /** Where the service reports its own defects (a failure while answering, a stored row it cannot render), one
   * line each; stderr when absent. */
  readonly log?: (line: string) => void
}

const logOf = (env: ApiEnvironment) => env.log ?? ((line: string) => void process.stderr.write(`${line}\n`))

/** A JSON answer with a status. */
const jsonAnswer = (status: number, body: unknown): HttpServerResponse.HttpServerResponse => {
  let text: string
  try {
    text = JSON.stringify(body)
  } catch (cause) {
    return jsonAnswer(500, errorBody(refusal(new InternalError({ reason: cause instanceof Error ? cause.message : String(cause) }))))
  }
  return HttpServerResponse.text(text, { status, contentType: "application/json" })
}

const refused = (r: Refusal) => jsonAnswer(refusalStatus(r), errorBody(r))

const problemsOf = (result: Result.Result<unknown, Refusal>): ReadonlyArray<ServiceProblem> => (Result.isFailure(result) ? result.failure.problems : [])

// A lost race on a unique value, or on a row another request deleted meanwhile (an entrypoint snapshot retention let
// go as a job was made from it), is the client's conflict to retry; every other database failure is the service's (500).
// Anything else thrown is a defect of the service: logged whole, answered without its internal text.
const failureOf = (cause: unknown, log?: (line: string) => void): Refusal => {
  if (cause instanceof DatabaseError) {
    return refusal(cause.code === uniqueViolation || cause.code === foreignKeyViolation ? new WriteConflict({ reason: cause.reason }) : cause)
  }
  log?.(`the service failed while answering: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}`)
  return refusal(new InternalError({ reason: "it failed while answering (the service's log says why); a creation that failed stored nothing" }))
}

const bearerToken = (authorization: string | undefined): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1]

// A workload's report token stands for its job alone: it may only post that job's logs and metrics.
const reportPrincipal = async (
  env: ApiEnvironment,
  token: string,
  route: Route,
  params: Readonly<Record<string, string>>
): Promise<Result.Result<Credential, Unauthenticated | Forbidden>> => {
  const job = env.reportSecret === undefined ? undefined : reportTokenJob(env.reportSecret, token)
  if (job === undefined) return Result.fail(new Unauthenticated({ reason: "the bearer token is not a valid job report token" }))
  const name = `job ${job} workload`
  if (!route.reports || params["id"] !== String(job)) return Result.fail(new Forbidden({ principal: name, action: `${route.method} ${route.path} for job ${params["id"] ?? "?"}` }))
  const [row] = await env.db.query<{ grp: string }>(`select grp from jobs where id = $1 and not deleted`, [job])
  return row === undefined
    ? Result.fail(new Unauthenticated({ reason: `job ${job} of the report token no longer exists` }))
    : Result.succeed({ name, group: row.grp, access: "write" })
}

/** The anonymous caller of an open endpoint (sign-up, login). */
const anonymous: Credential = { name: "anonymous", group: "anonymous", access: "write" }

// A bearer token wins over a session cookie, so automation is never mistaken for a browser's user.
const credentialOf = async (
  env: ApiEnvironment,
  route: Route,
  request: { readonly authorization: string | undefined; readonly cookie: string | undefined; readonly params: Readonly<Record<string, string>> }
): Promise<Result.Result<Credential & { readonly userId?: number; readonly sessionToken?: string }, Unauthenticated | Forbidden>> => {
  if (route.open) return Result.succeed(anonymous)
  const token = bearerToken(request.authorization)
  if (token !== undefined && isReportToken(token)) return reportPrincipal(env, token, route, request.params)
  const session = request.authorization === undefined ? sessionTokenOf(request.cookie) : undefined
  if (session === undefined) {
    return request.authorization === undefined
      ? Result.fail(new Unauthenticated({ reason: "no login session and no Authorization header; log in (POST /api/v1/auth/login) or send Authorization: Bearer <token>" }))
      : authenticate(env.tokens, request.authorization)
  }
  const user = await sessionUser(env.db, session, env.now())
  return user === undefined
    ? Result.fail(new Unauthenticated({ reason: "the login session has expired or was ended; log in again" }))
    : Result.succeed({ name: user.username, group: user.grp, access: "write", userId: user.id, sessionToken: session })
}

const parseBody = (text: string): Result.Result<unknown, Refusal> => {
  if (text.trim() === "") return Result.succeed(undefined)
  if (jsonDepth(text, maxJsonDepth) > maxJsonDepth) return Result.fail(refusal(new JsonTooDeep({ limit: maxJsonDepth })))
  try {
    return Result.succeed(JSON.parse(text))
  } catch (cause) {
    return Result.fail(refusal(new MalformedJson({ reason: cause instanceof Error ? cause.message : String(cause) })))
  }
}

/** What a request to an endpoint is admitted as, or why it is refused: authentication, authorization, then
 * every part decoded with the endpoint's declared schemas, all problems named at once. */
const admit = async (
  env: ApiEnvironment,
  route: Route,
  request: {
    readonly authorization: string | undefined
    readonly cookie: string | undefined
    readonly contentType: string | undefined
    readonly idempotencyKey: string | undefined
    readonly pathname: string
    readonly params: Readonly<Record<string, string>>
    readonly query: URLSearchParams
    readonly body: () => Promise<string>
  }
): Promise<Result.Result<AdmittedRequest["Service"], Refusal>> => {
  const principal = await credentialOf(env, route, request)
  if (Result.isFailure(principal)) return Result.fail(refusal(principal.failure))
  if (route.writes && principal.success.access !== "write") {
    return Result.fail(refusal(new Forbidden({ principal: principal.success.name, action: `${route.method} ${route.path}` })))
  }
  const who: Principal = route.open ? { ...principal.success, groupId: 0 } : { ...principal.success, groupId: await groupIdOf(env.db, principal.success.group) }
  const unknownId = badIds(route, request.params)
  if (unknownId.length > 0) return Result.fail(refusalOf(unknownId))
  if (route.body !== undefined && !isJsonContentType(request.contentType)) return Result.fail(refusal(new UnsupportedMediaType({ contentType: request.contentType ?? "" })))
  const unreadable = [...unstorableText("path", Object.entries(request.params)), ...unstorableText("query", [...request.query])]
  if (unreadable.length > 0) return Result.fail(refusalOf(unreadable))
  const params = decodePart(route.params, "path", request.params)
  const query = route.query === undefined ? Result.succeed(undefined) : decodePart(route.query, "query", queryRecord(request.query))
  const limits = env.limits ?? defaultLimits
  const keyed = request.idempotencyKey !== undefined && route.keyed
  const text = route.body === undefined && !keyed ? "" : await request.body()
  const parsed = route.body === undefined ? Result.succeed(undefined) : parseBody(text)
  // Checked before decoding: nothing longer than a field may hold, and no text a store cannot hold (NUL, an
  // unpaired surrogate, anywhere in the body), is stored, so no answer can grow from it nor a query fail on it.
  const oversized = Result.isSuccess(parsed) ? oversizedFields(parsed.success, limits.fieldBytes) : []
  const crowded = Result.isSuccess(parsed) ? crowdedFields(parsed.success, maxBodyItems) : []
  const unstorable = [
    ...oversized.map((f) => new FieldTooLarge({ field: f.path, bytes: f.bytes, limit: limits.fieldBytes })),
    ...crowded.map((f) => new TooManyItems({ field: f.path, items: f.items, limit: maxBodyItems })),
    ...(Result.isSuccess(parsed) ? malformedTexts(parsed.success) : [])
  ]
  const body: Result.Result<unknown, Refusal> = unstorable.length === 0 ? parsed : Result.fail(refusalOf(unstorable))
  const decodedBody = route.body === undefined || Result.isFailure(body) ? body : decodePart(route.body, "body", body.success)
  const key = keyed && request.idempotencyKey !== undefined ? parseIdempotencyKey(request.idempotencyKey) : undefined
  const problems = [...problemsOf(params), ...problemsOf(query), ...problemsOf(decodedBody), ...(key !== undefined && Result.isFailure(key) ? [key.failure] : [])]
  if (problems.length > 0 || Result.isFailure(params) || Result.isFailure(query) || Result.isFailure(decodedBody)) return Result.fail(refusalOf(problems))
  const once = key === undefined || Result.isFailure(key) ? undefined : { key: key.success, path: request.pathname, body: text }
  return Result.succeed({ principal: who, params: params.success, query: query.success, body: decodedBody.success, ...(once === undefined ? {} : { once }) })
}

/** Path ids that cannot name a resource: one that is not a canonical decimal (`01`, `0x10`, `1.0`, `1e0`, ` 1`,
 * `0`) is a 400 naming the parameter; a canonical one past the stored range names nothing stored, a 404. */
const badIds = (route: Route, params: Readonly<Record<string, string>>): ReadonlyArray<ServiceProblem> =>
  [...route.path.matchAll(/\/([A-Za-z]+)\/\{([A-Za-z]+)\}/g)].flatMap(([, collection = "", name = ""]): ReadonlyArray<ServiceProblem> => {
    const value = params[name]
    if (value === undefined || name === "name" || parseResourceId(value) !== undefined) return []
    if (!isCanonicalId(value)) {
      return [new InvalidRequest({ part: "path", path: name, detail: "must be a decimal id from 1, without sign, leading zeros, fraction or exponent" })]
    }
    return [new ResourceNotFound({ resource: collection.replace(/s$/, ""), id: value })]
  })

// Path and query strings are used in queries as they are: text the database cannot hold (NUL, an unpaired
// surrogate) is refused here, naming the parameter, as body fields are before decoding.
const unstorableText = (part: "path" | "query", values: ReadonlyArray<readonly [string, string]>): ReadonlyArray<InvalidRequest> =>
  values.flatMap(([name, value]) => {
    const flaw = textFlaw(value)
    return flaw === undefined ? [] : [new InvalidRequest({ part, path: name, detail: `${flaw}, which no stored text can hold` })]
  })

// A parameter given more than once (`?severity=ERROR&severity=INFO`, as Python's requests sends a list) is a list,
// as the declared API's own decoding reads it; a schema that takes one value refuses a list.
const queryRecord = (query: URLSearchParams): Readonly<Record<string, string | ReadonlyArray<string>>> =>
  Object.fromEntries([...new Set(query.keys())].map((name) => {
    const values = query.getAll(name)
    return [name, values.length === 1 ? (values[0] ?? "") : values]
  }))

class BodyRefused extends Error {}

const routeKey = (group: string, name: string) => `${group}.${name}`

/** The Authorization middleware: admits a request (or answers its refusal) before the builder decodes it. */
const authorizationLayer = (env: () => ApiEnvironment) => {
  const byEndpoint = new Map(env().routes.map((r) => [routeKey(r.group, r.name), r]))
  return Layer.succeed(Authorization, {
    bearer: (httpEffect, { endpoint, group }) =>
      Effect.gen(function* () {
        const route = byEndpoint.get(routeKey(group.identifier, endpoint.identifier))
        if (route === undefined) return jsonAnswer(500, errorBody(refusal(new InternalError({ reason: `no handler for ${endpoint.identifier}` }))))
        const request = yield* HttpServerRequest.HttpServerRequest
        const { params } = yield* HttpRouter.RouteContext
        const target = parseRequestTarget(request.originalUrl)
        const readBody = request.text.pipe(
          Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(maxBodyBytes)),
          Effect.mapError(() => new BodyRefused())
        )
        let bodyRead = false
        const admitted = yield* Effect.tryPromise({
          try: () =>
            admit(env(), route, {
              authorization: request.headers["authorization"],
              cookie: request.headers["cookie"],
              contentType: request.headers["content-type"],
              idempotencyKey: request.headers[idempotencyHeader],
              pathname: Result.isSuccess(target) ? target.success.pathname : request.url,
              params: Object.fromEntries(Object.entries(params).flatMap(([k, v]) => (v === undefined ? [] : [[k, v]]))),
              query: Result.isSuccess(target) ? target.success.searchParams : new URLSearchParams(),
              body: () => {
                bodyRead = true
                return Effect.runPromise(readBody)
              }
            }),
          catch: (cause) => cause
        }).pipe(Effect.result)
        if (Result.isFailure(admitted)) {
          const cause = admitted.failure
          const tooLarge = cause instanceof BodyRefused || (typeof cause === "object" && cause !== null && String(cause).includes("BodyRefused"))
          return tooLarge ? refused(refusal(new BodyTooLarge({ limit: maxBodyBytes }))) : refused(failureOf(cause, logOf(env())))
        }
        if (Result.isFailure(admitted.success)) {
          // A refusal decided before the body was read (401, 403, a bad id) still reads it, within the size limit,
          // so the client finishes sending before the answer and the connection is not reset under it.
          if (!bodyRead) yield* Effect.ignore(readBody)
          return refused(admitted.success.failure)
        }
        return yield* Effect.provideService(httpEffect, AdmittedRequest, admitted.success.success)
      })
  })
}

/** The services a handler reads, for one request answered on `db` (the database, or the creation's transaction). */
const requestServices = (
  current: ApiEnvironment,
  principal: Principal,
  client: string,
  setCookie: (value: string) => void,
  db: Database
): Context.Context<Exclude<RequestServices, SqlClient.SqlClient>> =>
  Context.make(Caller, principal).pipe(
    Context.add(ServiceClock, { now: current.now }),
    Context.add(AnswerLimitsService, current.limits ?? defaultLimits),
    Context.add(Links, {
      link: (linkPath, query = {}) => {
        const pairs = Object.entries(query).flatMap(([k, v]): Array<[string, string]> => (typeof v === "object" ? v.map((one) => [k, one]) : [[k, String(v)]]))
        const search = new URLSearchParams(pairs).toString()
        return `${current.baseUrl}${apiPrefix}${linkPath}${search === "" ? "" : `?${search}`}`
      }
    }),
    Context.add(Control, current.control?.()),
    Context.add(ServiceSettings, { signup: current.signup ?? false, signupGroup: current.signupGroup ?? "public", defaultBackend: current.defaultBackend }),
    Context.add(ClientAddress, client),
    Context.add(SetCookie, setCookie),
    Context.add(DefectLog, logOf(current)),
    Context.add(RequestDatabase, db)
  )

/** Runs a route's handler on an admitted request and answers its result as JSON. */
const runRoute = (env: () => ApiEnvironment, route: Route, answers: IdempotentAnswers) =>
  Effect.gen(function* () {
    const { once, principal, params, query, body } = yield* AdmittedRequest
    const request = yield* HttpServerRequest.HttpServerRequest
    const current = env()
    const cookies: Array<string> = []
    const client = Option.getOrElse(request.remoteAddress, () => "unknown")
    let rendered: { readonly answer: KeyedAnswer; readonly text: string } | undefined
    const answer = async (db: Database): Promise<KeyedAnswer> => {
      const handled = route.handle({ params, query, body }).pipe(
        Effect.result,
        Effect.provideContext(requestServices(current, principal, client, (value) => void cookies.push(value), db))
      )
      const result = await runOn(db, handled)
      const answered: KeyedAnswer = Result.isSuccess(result) ? { status: 200, body: result.success } : { status: refusalStatus(result.failure), body: errorBody(result.failure) }
      // Written out before the creation's transaction commits: an answer that cannot be sent rolls its write back.
      rendered = { answer: answered, text: JSON.stringify(answered.body) }
      return answered
    }
    const answered = yield* Effect.tryPromise({
      try: async (): Promise<KeyedAnswer> => {
        // A creation and its answer succeed or fail together: a failure after its insert (the database, or an
        // answer that cannot be written) rolls the insert back, so no 5xx ever stands for something committed.
        if (once === undefined) return route.keyed ? current.db.transaction((sql) => answer(joined(current.db, sql))) : answer(current.db)
        // The creation and its remembered answer are written in one transaction (see Idempotency.ts).
        const keyed = { group: principal.group, principal: principal.name, method: route.method, ...once }
        const first = await answers.answerOnce(current.db, keyed, current.now(), answer)
        return Result.isSuccess(first) ? first.success : { status: first.failure.status, body: errorBody(refusal(first.failure)) }
      },
      catch: (cause) => cause
    }).pipe(Effect.result)
    if (Result.isFailure(answered)) return refused(failureOf(answered.failure, logOf(current)))
    const response =
      rendered?.answer === answered.success
        ? HttpServerResponse.text(rendered.text, { status: answered.success.status, contentType: "application/json" })
        : jsonAnswer(answered.success.status, answered.success.body)
    return cookies.length === 0 ? response : HttpServerResponse.setHeader(response, "set-cookie", cookies.join(", "))
  })

/** Every declared group implemented by its routes: payloads are decoded by the Authorization middleware. */
const groupLayers = (env: () => ApiEnvironment, answers: IdempotentAnswers): Layer.Layer<any> =>
  (Layer.mergeAll as (...layers: ReadonlyArray<Layer.Layer<any, any, any>>) => Layer.Layer<any>)(
    ...Object.keys(DispatchApi.groups).map((group) =>
      HttpApiBuilder.group(DispatchApi, group as "jobs", (handlers) => {
        let built: any = handlers
        for (const route of env().routes.filter((r) => r.group === group)) built = built.handleRaw(route.name, () => runRoute(env, route, answers))
        return built
      })
    )
  )

/** The OpenAPI document as served: paths relative to the `/api/v1` server, as Dioptra clients read them. */
export const openApiDocument = () => {
  const generated = OpenApi.fromApi(DispatchApi)
  const paths = Object.fromEntries(Object.entries(generated.paths).map(([path, item]) => [path.startsWith(apiPrefix) ? path.slice(apiPrefix.length) : path, item]))
  return { ...generated, servers: [{ url: apiPrefix }], paths }
}

/** `/api/v1`: what the API is and where its document and docs page are. */
const apiIndex = (env: () => ApiEnvironment) => ({
  name: "dispatch job service (Dioptra job API)",
  version: "1",
  openapi: `${env().baseUrl}${apiPrefix}/openapi.json`,
  docs: `${env().baseUrl}${apiPrefix}/docs`,
  endpoints: env().routes.map((r) => ({ method: r.method, path: r.path, summary: r.summary }))
})

// The web page and its assets (WebApp.ts); a name the build did not make is the service's JSON 404.
const webPage = (env: () => ApiEnvironment) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const target = parseRequestTarget(request.originalUrl)
    const path = Result.isSuccess(target) ? target.success.pathname : request.url
    const files = yield* Effect.promise(() => webFilesAt(env().webRoot ?? webRoot))
    if (files === undefined) {
      return HttpServerResponse.text("The web page is not built: run `pnpm install` (or `pnpm --filter @dispatch/web build`) in the repository.\n", { status: 503 })
    }
    const file = files.get(path)
    if (file === undefined) return refused(refusal(new RouteNotFound({ path })))
    const { body, headers } = webAnswer(file, request.headers["accept-encoding"])
    return HttpServerResponse.uint8Array(body, { contentType: file.contentType, headers })
  })

const publicRoutes = (env: () => ApiEnvironment) =>
  HttpRouter.use((router) =>
    Effect.gen(function* () {
      yield* router.add("GET", webIndexPath, webPage(env))
      yield* router.add("GET", `${webAssetsPrefix}*`, webPage(env))
      yield* router.add("GET", `${apiPrefix}/openapi.json`, Effect.sync(() => jsonAnswer(200, env().openApi())))
      yield* router.add("GET", apiPrefix, Effect.sync(() => jsonAnswer(200, apiIndex(env))))
      yield* router.add("GET", "/healthz", Effect.sync(() => jsonAnswer(200, { status: "ok" })))
      yield* router.add(
        "GET",
        "/readyz",
        Effect.promise(async () => {
          const step = env().starting?.()
          const found = step === undefined ? await readiness(env().db, env().dispatcher?.() ?? "off") : startingReadiness(step, env().dispatcher?.() ?? "off")
          return jsonAnswer(found.ready ? 200 : 503, found)
        })
      )
      yield* router.add(
        "GET",
        "/metrics",
        Effect.map(Effect.suspend(() => metricsText(env().db)), (text) => HttpServerResponse.text(text, { contentType: "text/plain; version=0.0.4; charset=utf-8" }))
      )
    })
  )

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

/** The paths served outside the declared API, each by GET alone. */
const servedByGet = (pathname: string): boolean =>
  pathname === apiPrefix || pathname === "/healthz" || pathname === "/readyz" || pathname === "/metrics" || pathname === `${apiPrefix}/openapi.json` ||
  pathname === `${apiPrefix}/docs` || pathname === webIndexPath || pathname.startsWith(webAssetsPrefix)

/** Why a method is not answered on a path: 404 when nothing is served there, else 405 naming what is. */
const notServed = (env: ApiEnvironment, method: string, pathname: string): RouteNotFound | MethodNotAllowed => {
  if (servedByGet(pathname)) return new MethodNotAllowed({ method, path: pathname, allowed: ["GET"] })
  if (!pathname.startsWith(`${apiPrefix}/`)) return new RouteNotFound({ path: pathname })
  const found = findRoute(env.routes, method, pathname.slice(apiPrefix.length))
  return Result.isFailure(found) ? found.failure : new MethodNotAllowed({ method, path: pathname, allowed: [] })
}

/** The `Allow` header a 405 carries: the methods the path is served by (RFC 9110, section 10.2.1). */
const allowHeader = (problem: RouteNotFound | MethodNotAllowed): string | undefined =>
  problem._tag === "MethodNotAllowed" ? [...new Set(problem.allowed)].sort((a, b) => methodOrder.indexOf(a) - methodOrder.indexOf(b)).join(", ") : undefined

const methodOrder = ["GET", "POST", "PUT", "DELETE"]

const notServedAnswer = (problem: RouteNotFound | MethodNotAllowed) => {
  const answer = refused(refusal(problem))
  const allow = allowHeader(problem)
  return allow === undefined ? answer : HttpServerResponse.setHeader(answer, "allow", allow)
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
      if (String(cause).includes("RouteNotFound")) return Effect.succeed(notServedAnswer(notServed(env(), method, pathname)))
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
  const problem = notServed(env, method, pathname)
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
  const problem = notServed(env(), "CONNECT", pathname)
  // A tunnel target (`host:port`) names no path of the service: nothing there allows anything.
  answerOnSocket(socket, problem._tag === "MethodNotAllowed" ? problem : new MethodNotAllowed({ method: "CONNECT", path: pathname, allowed: [] }), allowHeader(problem) ?? "")
}

/** A running HTTP face of the service. */
export interface Listening {
  readonly server: Server
  readonly url: string
  /** Gives the service what it lacked when it began to listen (its database, once open), or a new startup step. */
  readonly update: (more: Partial<Omit<ApiEnvironment, "baseUrl">>) => void
  /** Stops listening, waits for open requests, and frees what the server holds. */
  readonly close: () => Promise<void>
}

/** Serves the API on a node:http server; the environment's base URL is filled in once it listens. Nothing a
 * client sends can throw out of it: every request ends in an answer or a closed connection. */
export const listen = async (env: Omit<ApiEnvironment, "baseUrl">, host: string, port: number): Promise<Listening> => {
  let baseUrl = ""
  const current = { ...env, baseUrl }
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
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(app as Layer.Layer<HttpServer.HttpServer, unknown>, scope)).catch(async (cause: unknown) => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    throw cause instanceof Error ? cause : new Error(String(cause))
  })
  const address = Context.get(context, HttpServer.HttpServer).address
  const boundPort = "port" in address ? address.port : port
  baseUrl = `http://${host.includes(":") ? `[${host}]` : host}:${boundPort}`
  Object.assign(current, { baseUrl })
  let closing: Promise<void> | undefined
  const close = () => (closing ??= Effect.runPromise(Scope.close(scope, Exit.void)))
  return { server, url: baseUrl, update: (more) => void Object.assign(current, more), close }
}

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
