import type { QueueBackend } from "@dispatch/jobs"
import { Context, Effect, Result, Schema } from "effect"
import { OpenApi, type HttpApiEndpoint } from "effect/http-api"
import { TakesIdempotencyKey } from "./Api.ts"
import type { Principal } from "./Auth.ts"
import type { Database } from "../store/Database.ts"
import type { JobControl } from "../dispatch/JobControl.ts"
import type { AnswerLimits } from "../wire/Limits.ts"
import type { Refusal } from "../wire/ServiceProblem.ts"
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
  type QueryValue,
  type RequestServices
} from "./RequestServices.ts"

export type { QueryValue } from "./RequestServices.ts"

/** What a handler gets: who asks, the decoded request parts, the database, the clock and a link maker. */
export interface RequestContext<P, Q, B> {
  readonly principal: Principal
  readonly params: P
  readonly query: Q
  readonly body: B
  readonly db: Database
  /** The service's time as an ISO-8601 string. */
  readonly now: () => string
  /** The absolute URL of an API path with a query string; a list value repeats its parameter. */
  readonly link: (path: string, query?: Readonly<Record<string, QueryValue>>) => string
  /** The dispatcher's controls, when the service dispatches to a cluster. */
  readonly control: JobControl | undefined
  /** How much one answer may hold. */
  readonly limits: AnswerLimits
  /** Whether the service registers users (`--signup`). */
  readonly signup: boolean
  /** The group users who sign up join. */
  readonly signupGroup: string
  /** The address the request came from (for counting failed logins), `unknown` when the transport gives none. */
  readonly client: string
  /** The backend a queue registered without one gets (`--default-backend`), if the service has one. */
  readonly defaultBackend: QueueBackend | undefined
  /** Adds a `Set-Cookie` header to the answer. */
  readonly setCookie: (value: string) => void
  /** Reports a defect of the service (a stored row it cannot render) in its log, one line. */
  readonly log: (line: string) => void
}

/** An HTTP method the API uses. */
export type Method = "GET" | "POST" | "PUT" | "DELETE"

type Decoder = Schema.ConstraintDecoder<unknown> & Schema.Top

/** One endpoint of the declaration (Api.ts) with its implementation: the parts read from the declared endpoint
 * (method, path template, schemas), whether a job's workload may call it, and its handler. */
export interface Route {
  /** The group the endpoint is declared in. */
  readonly group: string
  /** The endpoint's name in its group. */
  readonly name: string
  readonly method: Method
  /** The path under `/api/v1`, with `{name}` placeholders as OpenAPI writes them. */
  readonly path: string
  readonly summary: string
  readonly tag: string
  readonly params: Decoder
  readonly query: Decoder | undefined
  readonly body: Decoder | undefined
  readonly response: Schema.Top
  /** True when the endpoint changes data, so a read-only principal is refused. */
  readonly writes: boolean
  /** True when a job's workload may call it with its report token, for its own job (`{id}`). */
  readonly reports: boolean
  /** True when the endpoint creates and so honours `Idempotency-Key` (declared in Api.ts). */
  readonly keyed: boolean
  /** True when anyone may call it, without a session or token (sign-up, login). */
  readonly open: boolean
  readonly handle: Handler<any, any, any, unknown>
}

/** A request's decoded parts, as its endpoint declares them. */
export interface RequestParts<P, Q, B> {
  readonly params: P
  readonly query: Q
  readonly body: B
}

/** What answers an endpoint: an Effect from the request's decoded parts to the answer, failing with the declared
 * refusals, reading all else (who asks, the clock, the database, …) from its context. */
export type Handler<P, Q, B, A> = (request: RequestParts<P, Q, B>) => Effect.Effect<A, Refusal, RequestServices>

type TypeOf<S> = [S] extends [never] ? undefined : S extends Schema.Top ? S["Type"] : undefined
/** A declared group, as far as a route needs it. */
type GroupLike = { readonly identifier: string; readonly endpoints: Readonly<Record<string, unknown>> }
type EndpointOf<G extends GroupLike, K extends string> = G["endpoints"][K] & { readonly "~Params": unknown; readonly "~Query": unknown; readonly "~Payload": unknown; readonly "~Success": unknown }

const noParams: Decoder = Schema.Struct({})

/** Implements endpoint `name` of a declared group, checking the handler against the endpoint's schemas. */
export const route = <G extends GroupLike, const K extends keyof G["endpoints"] & string>(
  group: G,
  name: K,
  definition: {
    readonly reports?: boolean
    readonly open?: boolean
    readonly handle: Handler<TypeOf<EndpointOf<G, K>["~Params"]>, TypeOf<EndpointOf<G, K>["~Query"]>, TypeOf<EndpointOf<G, K>["~Payload"]>, TypeOf<EndpointOf<G, K>["~Success"]>>
  }
): Route => {
  const endpoint = group.endpoints[name] as HttpApiEndpoint.Top
  const [body] = endpoint.payload.get("application/json")?.schemas ?? []
  const [response] = endpoint.success
  const prefix = "/api/v1"
  const path = endpoint.path.startsWith(prefix) ? endpoint.path.slice(prefix.length) : endpoint.path
  return {
    group: group.identifier,
    name,
    method: endpoint.method as Method,
    path: path.replace(/:([A-Za-z][A-Za-z0-9]*)/g, "{$1}"),
    summary: Context.getOrUndefined(endpoint.annotations, OpenApi.Summary) ?? "",
    tag: group.identifier,
    params: (endpoint.params as Decoder | undefined) ?? noParams,
    query: endpoint.query as Decoder | undefined,
    body: body as Decoder | undefined,
    response: response as Schema.Top,
    writes: endpoint.method !== "GET",
    reports: definition.reports ?? false,
    keyed: Context.get(endpoint.annotations, TakesIdempotencyKey),
    open: definition.open ?? false,
    handle: definition.handle as Route["handle"]
  }
}

// The request's context as one bag, made from the services, for the handlers not yet written as Effects.
const requestContext = <P, Q, B>(parts: RequestParts<P, Q, B>): Effect.Effect<RequestContext<P, Q, B>, never, RequestServices> =>
  Effect.gen(function* () {
    const settings = yield* ServiceSettings
    const clock = yield* ServiceClock
    const links = yield* Links
    return {
      ...parts,
      principal: yield* Caller,
      db: yield* RequestDatabase,
      now: clock.now,
      link: links.link,
      control: yield* Control,
      limits: yield* AnswerLimitsService,
      signup: settings.signup,
      signupGroup: settings.signupGroup,
      client: yield* ClientAddress,
      defaultBackend: settings.defaultBackend,
      setCookie: yield* SetCookie,
      log: yield* DefectLog
    }
  })

/** Implements an endpoint with a Promise handler that takes the request's context as one bag: the handlers not yet
 * written as Effects. What the Promise throws is a defect of the answer (see `onDatabase`). */
export const promiseRoute = <G extends GroupLike, const K extends keyof G["endpoints"] & string>(
  group: G,
  name: K,
  definition: {
    readonly reports?: boolean
    readonly open?: boolean
    readonly handle: (
      context: RequestContext<TypeOf<EndpointOf<G, K>["~Params"]>, TypeOf<EndpointOf<G, K>["~Query"]>, TypeOf<EndpointOf<G, K>["~Payload"]>>
    ) => Promise<Result.Result<TypeOf<EndpointOf<G, K>["~Success"]>, Refusal>>
  }
): Route =>
  route(group, name, {
    ...definition,
    handle: (parts) =>
      Effect.flatMap(requestContext(parts), (context) => Effect.flatMap(Effect.promise(() => definition.handle(context)), Effect.fromResult))
  })
