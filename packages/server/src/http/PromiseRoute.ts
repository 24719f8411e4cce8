// The handlers not yet written as Effects (the job routes): a Promise function of the request's context as one
// bag, made from the request's services. It goes when the last of them is an Effect.
import type { QueueBackend } from "@dispatch/jobs"
import { Effect, type Result } from "effect"
import type { Principal } from "./Auth.ts"
import type { JobControl } from "../dispatch/JobControl.ts"
import type { Database } from "../store/Database.ts"
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
import { route, type EndpointOf, type GroupLike, type RequestParts, type Route, type TypeOf } from "./Route.ts"

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
