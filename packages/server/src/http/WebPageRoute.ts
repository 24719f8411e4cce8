// The web page and its assets at `/` (WebApp.ts reads the build); a name the build did not make is the service's JSON 404.
import { Effect, Result } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { webRoot } from "@dispatch/web"
import type { ApiEnvironment } from "./ApiEnvironment.ts"
import { refused } from "./ErrorAnswers.ts"
import { parseRequestTarget } from "./RequestTarget.ts"
import { webAnswer, webFilesAt } from "./WebApp.ts"
import { refusal, RouteNotFound } from "../wire/ServiceProblem.ts"

/** Answers a request for the web page or one of its assets. */
export const webPage = (env: () => ApiEnvironment) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const target = parseRequestTarget(request.originalUrl)
    const path = Result.isSuccess(target) ? target.success.pathname : request.url
    const files = yield* Effect.promise(() => webFilesAt(env().webRoot ?? webRoot))
    if (files === undefined) {
      return HttpServerResponse.text("The web page is not built: run `pnpm install` (or `pnpm --filter @dispatch/web build`) in the repository.\n", { status: 503 })
    }
    const file = files.get(path)
    if (file === undefined) return refused(refusal(new RouteNotFound({ path })))
    const { body, headers } = webAnswer(file, request.headers["accept-encoding"])
    return HttpServerResponse.uint8Array(body, { contentType: file.contentType, headers })
  })

