// Admission: what a request to an endpoint is admitted as, or why it is refused. Authentication, then
// authorization, then every part decoded with the endpoint's declared schemas, all problems named at once, in the
// order Dioptra clients expect (401/403 before 400). It is the Authorization middleware of the declared API.
import { malformedTexts, parseResourceId, textFlaw } from "@dispatch/jobs"
import { ByteSize, Cause, Effect, Layer, Option, Result } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServerRequest } from "effect/http"
import { SqlClient } from "effect/sql"
import { AdmittedRequest, Authorization } from "./Api.ts"
import { logOf, maxBodyBytes, type ApiEnvironment } from "./ApiEnvironment.ts"
import { authenticate, type Credential, type Principal } from "./Auth.ts"
import { failureOf, jsonAnswer, refused } from "./ErrorAnswers.ts"
import { idempotencyHeader, parseIdempotencyKey } from "./IdempotencyKey.ts"
import { isReportToken, reportTokenJob } from "../dispatch/ReportToken.ts"
import { isJsonContentType, jsonDepth, maxJsonDepth } from "./RequestBody.ts"
import { decodePart } from "./RequestDecoding.ts"
import { stored } from "./RequestServices.ts"
import { parseRequestTarget } from "./RequestTarget.ts"
import type { Route } from "./Route.ts"
import { sessionTokenOf, sessionUser } from "./Sessions.ts"
import { groupIdOf } from "../store/Groups.ts"
import { jobOwners } from "../store/JobOwners.ts"
import { isCanonicalId } from "../wire/ApiSchemas.ts"
import { errorBody } from "../wire/ErrorBody.ts"
import { bodyFlawed, crowdedFields, defaultLimits, maxBodyItems, oversizedFields } from "../wire/Limits.ts"
import {
  BodyTooLarge,
  FieldTooLarge,
  Forbidden,
  InternalError,
  InvalidRequest,
  JsonTooDeep,
  MalformedJson,
  refusal,
  refusalOf,
  ResourceNotFound,
  TooManyItems,
  Unauthenticated,
  UnsupportedMediaType,
  type Refusal,
  type ServiceProblem
} from "../wire/ServiceProblem.ts"

/** The parts of a request admission reads. */
interface Request {
  readonly authorization: string | undefined
  readonly cookie: string | undefined
  readonly contentType: string | undefined
  readonly idempotencyKey: string | undefined
  readonly pathname: string
  readonly params: Readonly<Record<string, string>>
  readonly query: URLSearchParams
  /** The body's text, read once, within the size limit. */
  readonly body: Effect.Effect<string, Refusal>
}

const refuse = (first: ServiceProblem): Effect.Effect<never, Refusal> => Effect.fail(refusal(first))

const bearerToken = (authorization: string | undefined): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1]

// A workload's report token stands for its job alone: it may only post that job's logs and metrics.
const reportPrincipal = (env: ApiEnvironment, token: string, route: Route, params: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const job = env.reportSecret === undefined ? undefined : reportTokenJob(env.reportSecret, token)
    if (job === undefined) return yield* refuse(new Unauthenticated({ reason: "the bearer token is not a valid job report token" }))
    const name = `job ${job} workload`
    if (!route.reports || params["id"] !== String(job)) return yield* refuse(new Forbidden({ principal: name, action: `${route.method} ${route.path} for job ${params["id"] ?? "?"}` }))
    const owner = yield* stored(Effect.flatMap(jobOwners, (owners) => owners.groupOf(job)))
    if (Option.isNone(owner)) return yield* refuse(new Unauthenticated({ reason: `job ${job} of the report token no longer exists` }))
    const credential: Credential = { name, group: owner.value.grp, access: "write" }
    return credential
  })

/** The anonymous caller of an open endpoint (sign-up, login). */
const anonymous: Credential = { name: "anonymous", group: "anonymous", access: "write" }

// A bearer token wins over a session cookie, so automation is never mistaken for a browser's user.
const credentialOf = (env: ApiEnvironment, route: Route, request: Request) =>
  Effect.gen(function* () {
    if (route.open) return anonymous as Credential & { readonly userId?: number; readonly sessionToken?: string }
    const token = bearerToken(request.authorization)
    if (token !== undefined && isReportToken(token)) return yield* reportPrincipal(env, token, route, request.params)
    const session = request.authorization === undefined ? sessionTokenOf(request.cookie) : undefined
    if (session === undefined) {
      if (request.authorization === undefined) {
        return yield* refuse(new Unauthenticated({ reason: "no login session and no Authorization header; log in (POST /api/v1/auth/login) or send Authorization: Bearer <token>" }))
      }
      return yield* Effect.mapError(Effect.fromResult(authenticate(env.tokens, request.authorization)), (problem) => refusal(problem))
    }
    const user = yield* stored(sessionUser(session, env.now()))
    if (user === undefined) return yield* refuse(new Unauthenticated({ reason: "the login session has expired or was ended; log in again" }))
    return { name: user.username, group: user.grp, access: "write" as const, userId: user.id, sessionToken: session }
  })

const parseBody = (text: string): Result.Result<unknown, Refusal> => {
  if (text.trim() === "") return Result.succeed(undefined)
  if (jsonDepth(text, maxJsonDepth) > maxJsonDepth) return Result.fail(refusal(new JsonTooDeep({ limit: maxJsonDepth })))
  try {
    return Result.succeed(JSON.parse(text))
  } catch (cause) {
    return Result.fail(refusal(new MalformedJson({ reason: cause instanceof Error ? cause.message : String(cause) })))
  }
}

// Every string over the field limit, then every collection over the item limit, then every string no store can
// hold, each named by its path.
const bodyProblems = (body: unknown, fieldBytes: number): ReadonlyArray<ServiceProblem> => [
  ...oversizedFields(body, fieldBytes).map((f) => new FieldTooLarge({ field: f.path, bytes: f.bytes, limit: fieldBytes })),
  ...crowdedFields(body, maxBodyItems).map((f) => new TooManyItems({ field: f.path, items: f.items, limit: maxBodyItems })),
  ...malformedTexts(body)
]

const problemsOf = (result: Result.Result<unknown, Refusal>): ReadonlyArray<ServiceProblem> => (Result.isFailure(result) ? result.failure.problems : [])

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

/** What a request to an endpoint is admitted as, or why it is refused. A failure of the database is a defect. */
const admit = (env: ApiEnvironment, route: Route, request: Request): Effect.Effect<AdmittedRequest["Service"], Refusal, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const credential = yield* credentialOf(env, route, request)
    if (route.writes && credential.access !== "write") return yield* refuse(new Forbidden({ principal: credential.name, action: `${route.method} ${route.path}` }))
    const principal: Principal = { ...credential, groupId: route.open ? 0 : yield* stored(groupIdOf(credential.group)) }
    const unknownId = badIds(route, request.params)
    if (unknownId.length > 0) return yield* Effect.fail(refusalOf(unknownId))
    if (route.body !== undefined && !isJsonContentType(request.contentType)) return yield* refuse(new UnsupportedMediaType({ contentType: request.contentType ?? "" }))
    const unreadable = [...unstorableText("path", Object.entries(request.params)), ...unstorableText("query", [...request.query])]
    if (unreadable.length > 0) return yield* Effect.fail(refusalOf(unreadable))
    const params = decodePart(route.params, "path", request.params)
    const query = route.query === undefined ? Result.succeed(undefined) : decodePart(route.query, "query", queryRecord(request.query))
    const limits = env.limits ?? defaultLimits
    const keyed = request.idempotencyKey !== undefined && route.keyed
    const text = route.body === undefined && !keyed ? "" : yield* request.body
    const parsed = route.body === undefined ? Result.succeed(undefined) : parseBody(text)
    // Checked before decoding: nothing longer than a field may hold, and no text a store cannot hold (NUL, an
    // unpaired surrogate, anywhere in the body), is stored, so no answer can grow from it nor a query fail on it.
    // One cheap walk finds whether there is anything to name; only then do the walks that name it run.
    const unstorable = Result.isSuccess(parsed) && bodyFlawed(parsed.success, limits.fieldBytes, maxBodyItems) ? bodyProblems(parsed.success, limits.fieldBytes) : []
    const body: Result.Result<unknown, Refusal> = unstorable.length === 0 ? parsed : Result.fail(refusalOf(unstorable))
    const decodedBody = route.body === undefined || Result.isFailure(body) ? body : decodePart(route.body, "body", body.success)
    const key = keyed && request.idempotencyKey !== undefined ? parseIdempotencyKey(request.idempotencyKey) : undefined
    const problems = [...problemsOf(params), ...problemsOf(query), ...problemsOf(decodedBody), ...(key !== undefined && Result.isFailure(key) ? [key.failure] : [])]
    if (problems.length > 0 || Result.isFailure(params) || Result.isFailure(query) || Result.isFailure(decodedBody)) return yield* Effect.fail(refusalOf(problems))
    const once = key === undefined || Result.isFailure(key) ? undefined : { key: key.success, path: request.pathname, body: text }
    return { principal, params: params.success, query: query.success, body: decodedBody.success, ...(once === undefined ? {} : { once }) }
  })

const routeKey = (group: string, name: string) => `${group}.${name}`

/** The Authorization middleware: admits a request (or answers its refusal) before the builder decodes it. */
export const authorizationLayer = (env: () => ApiEnvironment) => {
  const byEndpoint = new Map(env().routes.map((r) => [routeKey(r.group, r.name), r]))
  return Layer.succeed(Authorization, {
    bearer: (httpEffect, { endpoint, group }) =>
      Effect.gen(function* () {
        const route = byEndpoint.get(routeKey(group.identifier, endpoint.identifier))
        if (route === undefined) return jsonAnswer(500, errorBody(refusal(new InternalError({ reason: `no handler for ${endpoint.identifier}` }))))
        const current = env()
        const request = yield* HttpServerRequest.HttpServerRequest
        const { params } = yield* HttpRouter.RouteContext
        const target = parseRequestTarget(request.originalUrl)
        let bodyRead = false
        const bodyLimit = route.bodyBytes ?? maxBodyBytes
        const readBody = request.text.pipe(
          Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(bodyLimit)),
          Effect.mapError(() => refusal(new BodyTooLarge({ limit: bodyLimit })))
        )
        const admitted = yield* admit(current, route, {
          authorization: request.headers["authorization"],
          cookie: request.headers["cookie"],
          contentType: request.headers["content-type"],
          idempotencyKey: request.headers[idempotencyHeader],
          pathname: Result.isSuccess(target) ? target.success.pathname : request.url,
          params: Object.fromEntries(Object.entries(params).flatMap(([k, v]) => (v === undefined ? [] : [[k, v]]))),
          query: Result.isSuccess(target) ? target.success.searchParams : new URLSearchParams(),
          body: Effect.suspend(() => {
            bodyRead = true
            return readBody
          })
        }).pipe(Effect.provideService(SqlClient.SqlClient, current.db), Effect.exit)
        if (admitted._tag === "Success") return yield* Effect.provideService(httpEffect, AdmittedRequest, admitted.value)
        const refusedWith = Cause.findErrorOption(admitted.cause)
        if (Option.isNone(refusedWith)) return refused(failureOf(Cause.squash(admitted.cause), logOf(current)))
        // A refusal decided before the body was read (401, 403, a bad id) still reads it, within the size limit,
        // so the client finishes sending before the answer and the connection is not reset under it.
        if (!bodyRead) yield* Effect.ignore(readBody)
        return refused(refusedWith.value)
      })
  })
}
