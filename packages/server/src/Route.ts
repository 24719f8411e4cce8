import type { Result, Schema } from "effect"
import type { Principal } from "./Auth.ts"
import type { Database } from "./Database.ts"
import type { JobControl } from "./JobControl.ts"
import type { AnswerLimits } from "./Limits.ts"
import type { Refusal } from "./ServiceProblem.ts"

/** What a handler gets: who asks, the decoded request parts, the database, the clock and a link maker. */
export interface RequestContext<P, Q, B> {
  readonly principal: Principal
  readonly params: P
  readonly query: Q
  readonly body: B
  readonly db: Database
  /** The service's time as an ISO-8601 string. */
  readonly now: () => string
  /** The absolute URL of an API path with a query string. */
  readonly link: (path: string, query?: Readonly<Record<string, string | number>>) => string
  /** The dispatcher's controls, when the service dispatches to a cluster. */
  readonly control: JobControl | undefined
  /** How much one answer may hold. */
  readonly limits: AnswerLimits
}

/** An HTTP method the API uses. */
export type Method = "GET" | "POST" | "PUT" | "DELETE"

type Decoder = Schema.ConstraintDecoder<unknown> & Schema.Top

/** One endpoint: its method and path template, the schemas of its parts (which also make the OpenAPI), and its handler. */
export interface Route {
  readonly method: Method
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
  readonly handle: (context: RequestContext<any, any, any>) => Promise<Result.Result<unknown, Refusal>>
}

/** Defines an endpoint, checking the handler against the schemas of its parts and its answer. */
export const route = <P extends Decoder, R extends Schema.Top, Q extends Decoder | undefined = undefined, B extends Decoder | undefined = undefined>(definition: {
  readonly method: Method
  readonly path: string
  readonly summary: string
  readonly tag: string
  readonly params: P
  readonly query?: Q
  readonly body?: B
  readonly response: R
  readonly reports?: boolean
  readonly handle: (
    context: RequestContext<P["Type"], Q extends Decoder ? Q["Type"] : undefined, B extends Decoder ? B["Type"] : undefined>
  ) => Promise<Result.Result<R["Type"], Refusal>>
}): Route => ({
  method: definition.method,
  path: definition.path,
  summary: definition.summary,
  tag: definition.tag,
  params: definition.params,
  query: definition.query,
  body: definition.body,
  response: definition.response,
  writes: definition.method !== "GET",
  reports: definition.reports ?? false,
  handle: definition.handle
})
