// The declared API's groups implemented by the routes: each request's handler runs with the services it reads
// (RequestServices.ts), and its answer, a creation's with its write, is committed together or not at all.
import { Context, Effect, Layer, Option, Result } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import type { SqlClient } from "effect/sql"
import { AdmittedRequest, apiPrefix, DispatchApi } from "./Api.ts"
import { logOf, type ApiEnvironment } from "./ApiEnvironment.ts"
import type { Principal } from "./Auth.ts"
import { failureOf, jsonAnswer, refused } from "./ErrorAnswers.ts"
import { joined, type IdempotentAnswers, type KeyedAnswer } from "./Idempotency.ts"
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
import type { Route } from "./Route.ts"
import type { Database } from "../store/Database.ts"
import { runOn } from "../store/DatabaseBridge.ts"
import { errorBody, refusalStatus } from "../wire/ErrorBody.ts"
import { defaultLimits } from "../wire/Limits.ts"
import { refusal } from "../wire/ServiceProblem.ts"

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
export const groupLayers = (env: () => ApiEnvironment, answers: IdempotentAnswers): Layer.Layer<any> =>
  (Layer.mergeAll as (...layers: ReadonlyArray<Layer.Layer<any, any, any>>) => Layer.Layer<any>)(
    ...Object.keys(DispatchApi.groups).map((group) =>
      HttpApiBuilder.group(DispatchApi, group as "jobs", (handlers) => {
        let built: any = handlers
        for (const route of env().routes.filter((r) => r.group === group)) built = built.handleRaw(route.name, () => runRoute(env, route, answers))
        return built
      })
    )
  )

