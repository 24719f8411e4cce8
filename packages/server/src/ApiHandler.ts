import { malformedTexts } from "@dispatch/jobs"
import { Result } from "effect"
import { authenticate, type Principal, type TokenEntry } from "./Auth.ts"
import { DatabaseError, uniqueViolation, type Database } from "./Database.ts"
import { errorBody, refusalStatus } from "./ErrorBody.ts"
import { answerOnce } from "./Idempotency.ts"
import { parseIdempotencyKey, takesIdempotencyKey } from "./IdempotencyKey.ts"
import { decodePart } from "./RequestDecoding.ts"
import type { JobControl } from "./JobControl.ts"
import { defaultLimits, oversizedFields, type AnswerLimits } from "./Limits.ts"
import { isReportToken, reportTokenJob } from "./ReportToken.ts"
import { parseRequestTarget } from "./RequestTarget.ts"
import type { Route } from "./Route.ts"
import { findRoute } from "./Router.ts"
import {
  FieldTooLarge,
  Forbidden,
  MalformedJson,
  refusal,
  refusalOf,
  RouteNotFound,
  Unauthenticated,
  WriteConflict,
  type Refusal,
  type ServiceProblem
} from "./ServiceProblem.ts"

/** The prefix every endpoint lives under. */
export const apiPrefix = "/api/v1"

/** A request as the handler sees it: method, path with query string, headers and the whole body text. */
export interface ApiRequest {
  readonly method: string
  readonly url: string
  readonly authorization: string | undefined
  readonly body: string
  /** The `Idempotency-Key` header, when sent. */
  readonly idempotencyKey?: string | undefined
}

/** An answer: a status and a JSON body. */
export interface ApiResponse {
  readonly status: number
  readonly body: unknown
}

/** Everything the handler needs: the routes, the tokens, the database, the clock and the public base URL. */
export interface ApiEnvironment {
  readonly routes: ReadonlyArray<Route>
  readonly openApi: unknown
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
}

const refused = (r: Refusal): ApiResponse => ({ status: refusalStatus(r), body: errorBody(r) })

const parseBody = (text: string): Result.Result<unknown, Refusal> => {
  if (text.trim() === "") return Result.succeed(undefined)
  try {
    return Result.succeed(JSON.parse(text))
  } catch (cause) {
    return Result.fail(refusal(new MalformedJson({ reason: cause instanceof Error ? cause.message : String(cause) })))
  }
}

const problemsOf = (result: Result.Result<unknown, Refusal>): ReadonlyArray<ServiceProblem> => (Result.isFailure(result) ? result.failure.problems : [])

// A lost race on a unique value is the client's conflict; every other database failure is the service's (500).
const failureOf = (cause: unknown): Refusal => {
  if (cause instanceof DatabaseError) {
    return refusal(cause.code === uniqueViolation ? new WriteConflict({ reason: cause.reason }) : cause)
  }
  return refusal(new DatabaseError({ operation: "request", reason: cause instanceof Error ? cause.message : String(cause) }))
}

const bearerToken = (authorization: string | undefined): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1]

// A workload's report token stands for its job alone: it may only post that job's logs and metrics.
const reportPrincipal = async (
  env: ApiEnvironment,
  token: string,
  route: Route,
  params: Readonly<Record<string, string>>
): Promise<Result.Result<Principal, Unauthenticated | Forbidden>> => {
  const job = env.reportSecret === undefined ? undefined : reportTokenJob(env.reportSecret, token)
  if (job === undefined) return Result.fail(new Unauthenticated({ reason: "the bearer token is not a valid job report token" }))
  const name = `job ${job} workload`
  if (!route.reports || params["id"] !== String(job)) return Result.fail(new Forbidden({ principal: name, action: `${route.method} ${route.path} for job ${params["id"] ?? "?"}` }))
  const [row] = await env.db.query<{ grp: string }>(`select grp from jobs where id = $1 and not deleted`, [job])
  return row === undefined
    ? Result.fail(new Unauthenticated({ reason: `job ${job} of the report token no longer exists` }))
    : Result.succeed({ name, group: row.grp, access: "write" })
}

/** Answers one API request: route, authenticate, authorize, decode every part, run the handler; never throws. */
export const handleApiRequest = async (env: ApiEnvironment, request: ApiRequest): Promise<ApiResponse> => {
  const target = parseRequestTarget(request.url)
  if (Result.isFailure(target)) return refused(refusal(target.failure))
  const url = target.success
  if (request.method === "GET" && url.pathname === `${apiPrefix}/openapi.json`) return { status: 200, body: env.openApi }
  if (!url.pathname.startsWith(`${apiPrefix}/`)) return refused(refusal(new RouteNotFound({ path: url.pathname })))
  const matched = findRoute(env.routes, request.method, url.pathname.slice(apiPrefix.length))
  if (Result.isFailure(matched)) return refused(refusal(matched.failure))
  const { route, params } = matched.success
  const token = bearerToken(request.authorization)
  let principal: Result.Result<Principal, Unauthenticated | Forbidden>
  try {
    principal = token !== undefined && isReportToken(token) ? await reportPrincipal(env, token, route, params) : authenticate(env.tokens, request.authorization)
  } catch (cause) {
    return refused(failureOf(cause))
  }
  if (Result.isFailure(principal)) return refused(refusal(principal.failure))
  if (route.writes && principal.success.access !== "write") {
    return refused(refusal(new Forbidden({ principal: principal.success.name, action: `${route.method} ${route.path}` })))
  }
  const decodedParams = decodePart(route.params, "path", params)
  const decodedQuery = route.query === undefined ? Result.succeed(undefined) : decodePart(route.query, "query", Object.fromEntries(url.searchParams))
  const limits = env.limits ?? defaultLimits
  const parsed = route.body === undefined ? Result.succeed(undefined) : parseBody(request.body)
  // Checked before decoding: nothing longer than a field may hold is stored, so no answer can grow from it.
  const oversized = Result.isSuccess(parsed) ? oversizedFields(parsed.success, limits.fieldBytes) : []
  const unstorable = [
    ...oversized.map((f) => new FieldTooLarge({ field: f.path, bytes: f.bytes, limit: limits.fieldBytes })),
    ...(Result.isSuccess(parsed) ? malformedTexts(parsed.success) : [])
  ]
  const body: Result.Result<unknown, Refusal> = unstorable.length === 0 ? parsed : Result.fail(refusalOf(unstorable))
  const decodedBody = route.body === undefined || Result.isFailure(body) ? body : decodePart(route.body, "body", body.success)
  const key = request.idempotencyKey === undefined || !takesIdempotencyKey(route.method, route.path) ? undefined : parseIdempotencyKey(request.idempotencyKey)
  const problems = [...problemsOf(decodedParams), ...problemsOf(decodedQuery), ...problemsOf(decodedBody), ...(key !== undefined && Result.isFailure(key) ? [key.failure] : [])]
  if (problems.length > 0 || Result.isFailure(decodedParams) || Result.isFailure(decodedQuery) || Result.isFailure(decodedBody)) {
    return refused(refusalOf(problems))
  }
  const answer = async (db: Database): Promise<ApiResponse> => {
    const result = await route.handle({
      principal: principal.success,
      params: decodedParams.success,
      query: decodedQuery.success,
      body: decodedBody.success,
      db,
      now: env.now,
      control: env.control?.(),
      limits,
      link: (linkPath, query = {}) => {
        const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString()
        return `${env.baseUrl}${apiPrefix}${linkPath}${search === "" ? "" : `?${search}`}`
      }
    })
    return Result.isSuccess(result) ? { status: 200, body: result.success } : refused(result.failure)
  }
  try {
    if (key === undefined || Result.isFailure(key)) return await answer(env.db)
    const keyed = { group: principal.success.group, principal: principal.success.name, key: key.success, method: route.method, path: url.pathname, body: request.body }
    const once = await answerOnce(env.db, keyed, env.now(), answer)
    return Result.isSuccess(once) ? once.success : refused(refusal(once.failure))
  } catch (cause) {
    return refused(failureOf(cause))
  }
}
