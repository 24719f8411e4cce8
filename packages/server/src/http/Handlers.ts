// The declared API's groups implemented by the routes: each request's handler runs with the services it reads
// (RequestServices.ts), and its answer, a creation's with its write, is committed together or not at all.
import { Cause, Effect, Exit, Layer, Option, Result } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { AdmittedRequest, apiPrefix, DispatchApi } from "./Api.ts"
import { logOf, type ApiEnvironment } from "./ApiEnvironment.ts"
import type { Principal } from "./Auth.ts"
import { failureOf, jsonAnswer, refused } from "./ErrorAnswers.ts"
import type { IdempotentAnswers, KeyedAnswer } from "./Idempotency.ts"
import { servicesOf, transaction } from "./RequestServices.ts"
import type { Route } from "./Route.ts"
import { errorBody, refusalStatus } from "../wire/ErrorBody.ts"
import { defaultLimits } from "../wire/Limits.ts"
import { refusal } from "../wire/ServiceProblem.ts"

/** The services a handler reads, for one request (the database, effect/sql's client, is provided beside them). */
const requestServices = (current: ApiEnvironment, principal: Principal, client: string, setCookie: (value: string) => void) =>
  servicesOf({
    principal,
    now: current.now,
    limits: current.limits ?? defaultLimits,
    link: (linkPath, query = {}) => {
      const pairs = Object.entries(query).flatMap(([k, v]): Array<[string, string]> => (typeof v === "object" ? v.map((one) => [k, one]) : [[k, String(v)]]))
      const search = new URLSearchParams(pairs).toString()
      return `${current.baseUrl}${apiPrefix}${linkPath}${search === "" ? "" : `?${search}`}`
    },
    control: current.control?.(),
    settings: { signup: current.signup ?? false, signupGroup: current.signupGroup ?? "public", defaultBackend: current.defaultBackend },
    client,
    setCookie,
    log: logOf(current)
  })

/** Runs a route's handler on an admitted request and answers its result as JSON. */
const runRoute = (env: () => ApiEnvironment, route: Route, answers: IdempotentAnswers) =>
  Effect.gen(function* () {
    const { once, principal, params, query, body } = yield* AdmittedRequest
    const request = yield* HttpServerRequest.HttpServerRequest
    const current = env()
    const cookies: Array<string> = []
    const client = Option.getOrElse(request.remoteAddress, () => "unknown")
    let rendered: { readonly answer: KeyedAnswer; readonly text: string } | undefined
    const answer = Effect.gen(function* () {
      const result = yield* Effect.result(route.handle({ params, query, body }))
      const answered: KeyedAnswer = Result.isSuccess(result) ? { status: 200, body: result.success } : { status: refusalStatus(result.failure), body: errorBody(result.failure) }
      // Written out before the creation's transaction commits: an answer that cannot be sent rolls its write back.
      rendered = { answer: answered, text: JSON.stringify(answered.body) }
      return answered
    })
    // A creation and its answer succeed or fail together: a failure after its insert (the database, or an answer
    // that cannot be written) rolls the insert back, so no 5xx ever stands for something committed. A keyed
    // creation and its remembered answer are written in one transaction (see Idempotency.ts).
    const keyed = once === undefined ? undefined : { group: principal.group, principal: principal.name, method: route.method, ...once }
    const answering =
      keyed === undefined
        ? route.keyed
          ? transaction(answer)
          : answer
        : Effect.map(answers.answerOnce(keyed, current.now(), answer), (first) =>
            Result.isSuccess(first) ? first.success : { status: first.failure.status, body: errorBody(refusal(first.failure)) }
          )
    const answered = yield* answering.pipe(
      Effect.provideContext(requestServices(current, principal, client, (value) => void cookies.push(value))),
      Effect.provideService(SqlClient.SqlClient, current.db),
      Effect.exit
    )
    if (Exit.isFailure(answered)) return refused(failureOf(Cause.squash(answered.cause), logOf(current)))
    const response =
      rendered?.answer === answered.value
        ? HttpServerResponse.text(rendered.text, { status: answered.value.status, contentType: "application/json" })
        : jsonAnswer(answered.value.status, answered.value.body)
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

