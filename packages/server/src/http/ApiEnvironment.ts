// What the service's HTTP face is given: its routes, tokens, database, clock, base URL and settings.
import type { QueueBackend } from "@dispatch/jobs"
import type { TokenEntry } from "./Auth.ts"
import type { SqlClient } from "effect/sql"
import type { JobControl } from "../dispatch/JobControl.ts"
import type { LogFormat } from "../ops/AccessLog.ts"
import type { DispatcherState, StartupStep } from "../ops/Readiness.ts"
import type { AnswerLimits } from "../wire/Limits.ts"
import type { Route } from "./Route.ts"

/** The largest request body accepted, in bytes. */
export const maxBodyBytes = 8 * 1024 * 1024

/** Everything the service needs: the routes, the tokens, the database, the clock and the public base URL. */
export interface ApiEnvironment {
  readonly routes: ReadonlyArray<Route>
  /** The OpenAPI document, made at its first use. */
  readonly openApi: () => unknown
  readonly tokens: ReadonlyArray<TokenEntry>
  /** The database: effect/sql's client, which every request's handler takes from its context. */
  readonly db: SqlClient.SqlClient
  readonly now: () => string
  readonly baseUrl: string
  /** The dispatcher's controls, read at each request (the dispatcher starts once the service listens). */
  readonly control?: () => JobControl | undefined
  /** The secret job report tokens are checked against; without it no report token is accepted. */
  readonly reportSecret?: string
  /** Size limits; `defaultLimits` when absent. */
  readonly limits?: AnswerLimits
  /** Whether the dispatcher runs, for `/readyz`; `off` when absent. */
  readonly dispatcher?: () => DispatcherState
  /** Whether users may sign up (`POST /users`); off when absent. */
  readonly signup?: boolean
  /** The backend queues registered without one get (`--default-backend`). */
  readonly defaultBackend?: QueueBackend
  /** The group users who sign up join; `public` when absent. */
  readonly signupGroup?: string
  /** Where one line per answered request goes, and in which format; no access log when absent. */
  readonly accessLog?: { readonly format: LogFormat; readonly write: (line: string) => void }
  /** The directory of the built web page served at `/`; @dispatch/web's build when absent. */
  readonly webRoot?: string
  /** What the service is still doing before it serves its API (its database is not open yet, say); it serves
   * when this is absent or answers undefined. Until then every request that needs the database answers 503. */
  readonly starting?: () => StartupStep | undefined
  /** Where the service reports its own defects (a failure while answering, a stored row it cannot render), one
   * line each; stderr when absent. */
  readonly log?: (line: string) => void
}

/** Where the service reports its own defects: the environment's log, or stderr. */
export const logOf = (env: ApiEnvironment) => env.log ?? ((line: string) => void process.stderr.write(`${line}\n`))
