import { Context, type Effect, Schema } from "effect"
import { OpenApi, type HttpApiEndpoint } from "effect/http-api"
import { BodyLimit, TakesIdempotencyKey } from "./Api.ts"
import type { Refusal } from "../wire/ServiceProblem.ts"
import type { RequestServices } from "./RequestServices.ts"

export type { QueryValue } from "./RequestServices.ts"

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
  /** The most bytes its body may take, when fewer than every body may (declared in Api.ts). */
  readonly bodyBytes?: number
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

/** The type a declared schema decodes to; undefined for a part the endpoint does not declare. */
export type TypeOf<S> = [S] extends [never] ? undefined : S extends Schema.Top ? S["Type"] : undefined
/** A declared group, as far as a route needs it. */
export type GroupLike = { readonly identifier: string; readonly endpoints: Readonly<Record<string, unknown>> }
/** A declared endpoint with its parts' types. */
export type EndpointOf<G extends GroupLike, K extends string> = G["endpoints"][K] & { readonly "~Params": unknown; readonly "~Query": unknown; readonly "~Payload": unknown; readonly "~Success": unknown }

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
  const bodyBytes = Context.get(endpoint.annotations, BodyLimit)
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
    ...(bodyBytes === undefined ? {} : { bodyBytes }),
    open: definition.open ?? false,
    handle: definition.handle as Route["handle"]
  }
}

