// What the service serves beside the declared API: the web page, the API's index and OpenAPI document, and the
// operations endpoints (health, readiness, metrics).
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { OpenApi } from "effect/http-api"
import { apiPrefix, DispatchApi } from "./Api.ts"
import type { ApiEnvironment } from "./ApiEnvironment.ts"
import { jsonAnswer } from "./ErrorAnswers.ts"
import { webAssetsPrefix, webIndexPath } from "./WebApp.ts"
import { webPage } from "./WebPageRoute.ts"
import { metricsText } from "../ops/Metrics.ts"
import { readiness, startingReadiness } from "../ops/Readiness.ts"

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

/** The routes outside the declared API. */
export const publicRoutes = (env: () => ApiEnvironment) =>
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
        Effect.gen(function* () {
          const step = env().starting?.()
          const dispatcher = env().dispatcher?.() ?? "off"
          const found = step === undefined ? yield* Effect.provideService(readiness(dispatcher), SqlClient.SqlClient, env().db) : startingReadiness(step, dispatcher)
          return jsonAnswer(found.ready ? 200 : 503, found)
        })
      )
      yield* router.add(
        "GET",
        "/metrics",
        Effect.map(Effect.suspend(() => Effect.orDie(Effect.provideService(metricsText, SqlClient.SqlClient, env().db))), (text) => HttpServerResponse.text(text, { contentType: "text/plain; version=0.0.4; charset=utf-8" }))
      )
    })
  )

