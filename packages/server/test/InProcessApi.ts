// The API answered in process (handleApiRequest), without a listener: the environment a test's requests run in, on
// its database, and a caller that sends them with a token.
import { handleApiRequest, type ApiEnvironment } from "../src/http/ApiServer.ts"
import { openApi, routes } from "../src/Serve.ts"
import { inProcess, tokenEntries } from "./Fixtures.ts"
import type { TestDatabase } from "./TestDatabase.ts"

/** The environment of every request: the service's routes, the fixtures' tokens, the test's database, and a clock
 * that moves a second each time it is read (from 2026-11-30 12:00). */
export const inProcessEnvironment = (database: () => TestDatabase, log: (line: string) => void = () => undefined): (() => ApiEnvironment) => {
  let clock = Date.UTC(2026, 10, 30, 12)
  return () => ({
    routes,
    openApi,
    tokens: tokenEntries,
    db: database().client,
    now: () => new Date((clock += 1000)).toISOString(),
    baseUrl: "http://test",
    log
  })
}

/** A client of the API in process with `token` (none: anonymous), each request in the environment `env` makes. */
export const inProcessCaller = (env: () => ApiEnvironment, token: string | undefined) =>
  inProcess(async (method: string, url: string, body?: unknown) => {
    const answer = await handleApiRequest(env(), {
      method,
      url: `/api/v1${url}`,
      authorization: token === undefined ? undefined : `Bearer ${token}`,
      body: body === undefined ? "" : JSON.stringify(body)
    })
    return { status: answer.status, body: answer.body as any }
  })
