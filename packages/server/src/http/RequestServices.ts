// What a handler reads from its context while it answers one request: who asks, the service's settings and
// clock, how big an answer may be, how to link to the API, where to send a Set-Cookie or a defect, and the
// database (effect/sql's client). The API layer provides them per request (Handlers.ts); a handler names what it uses
// in its type.
import type { QueueBackend } from "@dispatch/jobs"
import { Context, Effect, Option, Schema } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import type { Principal } from "./Auth.ts"
import type { JobControl, JobControlEffects } from "../dispatch/JobControl.ts"
import { databaseError, DatabaseError } from "../store/Database.ts"
import type { AnswerLimits } from "../wire/Limits.ts"

/** Who asks: the principal the Authorization middleware admitted. */
export class Caller extends Context.Service<Caller, Principal>()("dispatch/Caller") {}

/** The service's clock, as the API shows time. */
export class ServiceClock extends Context.Service<ServiceClock, {
  /** The service's time as an ISO-8601 string. */
  readonly now: () => string
}>()("dispatch/ServiceClock") {}

/** How much one answer may hold. */
export class AnswerLimitsService extends Context.Service<AnswerLimitsService, AnswerLimits>()("dispatch/AnswerLimits") {}

/** A query parameter's value: one, or a list (the parameter repeated). */
export type QueryValue = string | number | ReadonlyArray<string>

/** Makes absolute links into the API. */
export class Links extends Context.Service<Links, {
  /** The absolute URL of an API path with a query string; a list value repeats its parameter. */
  readonly link: (path: string, query?: Readonly<Record<string, QueryValue>>) => string
}>()("dispatch/Links") {}

/** The dispatcher's controls, when the service dispatches to a cluster (undefined when it does not). */
export class Control extends Context.Service<Control, JobControlEffects | undefined>()("dispatch/Control") {}

/** The service's settings a handler acts on. */
export class ServiceSettings extends Context.Service<ServiceSettings, {
  /** Whether the service registers users (`--signup`). */
  readonly signup: boolean
  /** The group users who sign up join. */
  readonly signupGroup: string
  /** The backend a queue registered without one gets (`--default-backend`), if the service has one. */
  readonly defaultBackend: QueueBackend | undefined
}>()("dispatch/ServiceSettings") {}

/** The address the request came from (for counting failed logins), `unknown` when the transport gives none. */
export class ClientAddress extends Context.Service<ClientAddress, string>()("dispatch/ClientAddress") {}

/** Adds a `Set-Cookie` header to the answer. */
export class SetCookie extends Context.Service<SetCookie, (value: string) => void>()("dispatch/SetCookie") {}

/** Reports a defect of the service (a stored row it cannot render) in its log, one line. */
export class DefectLog extends Context.Service<DefectLog, (line: string) => void>()("dispatch/DefectLog") {}

/** Everything a handler may read from its context. */
export type RequestServices =
  | Caller
  | ServiceClock
  | AnswerLimitsService
  | Links
  | Control
  | ServiceSettings
  | ClientAddress
  | SetCookie
  | DefectLog
  | SqlClient.SqlClient

/** What one request's services are made of. */
export interface RequestValues {
  readonly principal: Principal
  readonly now: () => string
  readonly limits: AnswerLimits
  readonly link: Links["Service"]["link"]
  readonly control: JobControl | undefined
  readonly settings: ServiceSettings["Service"]
  readonly client: string
  readonly setCookie: (value: string) => void
  readonly log: (line: string) => void
}

/** The services a handler reads, but the SqlClient (the service's database, provided beside them). */
export const servicesOf = (values: RequestValues): Context.Context<Exclude<RequestServices, SqlClient.SqlClient>> =>
  Context.make(Caller, values.principal).pipe(
    Context.add(ServiceClock, { now: values.now }),
    Context.add(AnswerLimitsService, values.limits),
    Context.add(Links, { link: values.link }),
    Context.add(Control, values.control),
    Context.add(ServiceSettings, values.settings),
    Context.add(ClientAddress, values.client),
    Context.add(SetCookie, values.setCookie),
    Context.add(DefectLog, values.log)
  )

/** The service's time now, as an ISO-8601 string. */
export const now: Effect.Effect<string, never, ServiceClock> = ServiceClock.useSync((clock) => clock.now())

// What a repository failed with, as the database's failure the API layer answers (a lost race 409, else 500).
const storeFailure = (error: unknown): unknown => {
  if (SqlError.isSqlError(error)) return error.reason.cause instanceof DatabaseError ? error.reason.cause : databaseError("query", error)
  return Schema.isSchemaError(error) ? databaseError("read", error) : error
}

/** A repository's statements in a handler: a failure of the database (or a row its schema refuses) is no refusal of
 * the request but a defect of the answer, which the API layer answers as it always has (a lost race 409, else 500)
 * and which rolls a creation back. */
export const stored = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, never, R> =>
  Effect.catch(effect, (error) => Effect.die(storeFailure(error)))

/** Runs `effect` in one transaction of the request's database (effect/sql's `withTransaction`), joining the
 * creation's when it runs in one: committed when it succeeds or refuses, rolled back on a defect. A transaction that
 * cannot begin or commit is the database's failure, a defect of the answer (see `stored`). */
export const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // Inside an open transaction the effect joins it as it is: no savepoint, the statements the creation sends.
    if (Option.isSome(yield* Effect.serviceOption(sql.transactionService))) return yield* effect
    const result = yield* sql.withTransaction(Effect.result(effect)).pipe(Effect.catch((error) => Effect.die(databaseError("transaction", error))))
    return yield* Effect.fromResult(result)
  })
