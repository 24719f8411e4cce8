import { randomBytes } from "node:crypto"
import { Clock, Context, Effect, Exit, Layer, Result, Schema, Scope } from "effect"
import { QueueBackend } from "@dispatch/jobs"
import { TokenEntry } from "./http/Auth.ts"
import { fillMissingBackends } from "./store/ResourceStore.ts"
import { lockDataDir, type DataDirLock } from "./store/DataDirLock.ts"
import { DatabaseError, databaseError, DatabaseService, type Database } from "./store/Database.ts"
import { dispatcherLayer, DispatcherService, type DispatchOptions, type Dispatcher } from "./dispatch/Dispatcher.ts"
import { serviceSecret } from "./store/DispatchStore.ts"
import { jobControlRoutes } from "./http/JobControlRoutes.ts"
import { jobRoutes } from "./http/JobRoutes.ts"
import { apiPrefix, listen, openApiDocument, type Listening } from "./http/ApiServer.ts"
import { defaultLimits, type AnswerLimits } from "./wire/Limits.ts"
import { migrate } from "./store/Migrations.ts"
import { pgliteLayer, pgliteOpeningNote } from "./store/PgliteDatabase.ts"
import { postgresLayer } from "./store/PostgresDatabase.ts"
import type { LogFormat } from "./ops/AccessLog.ts"
import { startupReason, type StartupStep } from "./ops/Readiness.ts"
import { resourceRoutes } from "./http/ResourceRoutes.ts"
import { accountRoutes } from "./http/AccountRoutes.ts"

/** Every endpoint of the service. */
export const routes = [...accountRoutes, ...resourceRoutes, ...jobRoutes, ...jobControlRoutes]

let document: ReturnType<typeof openApiDocument> | undefined
/** The service's OpenAPI document (served at /api/v1/openapi.json), made when first asked for: generating it costs
 * a good part of a second, which start-up does not wait for. */
export const openApi = () => (document ??= openApiDocument())

/** How to run the job service. */
export interface ServeOptions {
  /** Interface to listen on; 127.0.0.1 when absent. */
  readonly host?: string
  /** Port to listen on; 0 (any free port) when absent. */
  readonly port?: number
  /** PostgreSQL to store in; when absent, embedded PGlite is used. */
  readonly databaseUrl?: string
  /** PGlite's data directory; in memory (lost on close) when absent. Ignored with `databaseUrl`. */
  readonly dataDir?: string
  /** The tokens that may call the API, hashed (see `hashToken`). */
  readonly tokens: ReadonlyArray<unknown>
  /** The service's clock, in epoch milliseconds; Effect's default clock when absent. */
  readonly clock?: () => number
  /** `n` random bytes (job ids, the report secret, the instance name); node:crypto when absent. */
  readonly random?: (n: number) => ReadonlyArray<number>
  /** Size limits of what a request may write and a list page may hold; `defaultLimits` for any not given. */
  readonly limits?: Partial<AnswerLimits>
  /** One line per answered request, in `text` or `json`, to `write` (stderr when absent); no access log when absent. */
  readonly accessLog?: { readonly format: LogFormat; readonly write?: (line: string) => void }
  /** Let anyone register a user (`POST /users`, Dioptra's `users.create`); refused (403) when absent or false. */
  readonly signup?: boolean
  /** The backend a queue registered without one gets (a queue made by a stock Dioptra client), decoded as a
   * queue's `backend`; queues already stored without one get it when the service starts. */
  readonly defaultBackend?: unknown
  /** Take jobs to the cluster: without it the service only stores jobs (their queues stay unproven). */
  readonly dispatch?: DispatchOptions
  /** The directory of the built web page served at `/`; @dispatch/web's build when absent. */
  readonly webRoot?: string
  /** Called with the base URL as soon as the service listens, before its database is open (until then `/readyz`
   * and the API answer 503 with Retry-After); `serve` itself resolves once the service serves. */
  readonly onListening?: (url: string) => void
  /** The database service's layer to open instead of the one `databaseUrl` or `dataDir` names (no data
   * directory lock is taken): embedding the service over a database of one's own, or holding its opening in a test. */
  readonly database?: Layer.Layer<DatabaseService, DatabaseError>
  /** Resolves when the process is asked to stop (SIGINT, SIGTERM). Asked while the service starts, it stops
   * listening at once, lets the step under way finish (a database half created or half migrated is worse than
   * a wait), starts nothing after it, and `serve` resolves to `ServeError` stage `stopped`. */
  readonly stop?: Promise<void>
}

/** A running service. */
export interface JobServer {
  /** Its base URL, e.g. `http://127.0.0.1:8080`; the API is under `/api/v1`. */
  readonly url: string
  /** Which database it stores in. */
  readonly database: "pglite" | "postgres"
  /** The dispatcher, when the service was given `dispatch`. */
  readonly dispatcher?: Dispatcher
  /** Stops the dispatcher, stops listening, waits for open requests, and closes the database. */
  readonly close: () => Promise<void>
}

/** The service did not start: bad options, a data directory another process holds, a database it cannot open or migrate, a port it cannot bind, or a stop asked for while it started. */
export class ServeError extends Schema.TaggedError<ServeError>()("ServeError", {
  stage: Schema.Literals(["options", "lock", "database", "listen", "stopped"]),
  reasons: Schema.Array(Schema.String)
}) {
  override get message() {
    return `the job service did not start (${this.stage}): ${this.reasons.join("; ")}`
  }
}

const defaultClock = () => Effect.runSync(Clock.currentTimeMillis)

const defaultRandom = (n: number): ReadonlyArray<number> => [...randomBytes(n)]

const decodeTokens = (tokens: ReadonlyArray<unknown>): Result.Result<ReadonlyArray<TokenEntry>, ServeError> => {
  const decoded = Schema.decodeUnknownResult(Schema.Array(TokenEntry))(tokens, { errors: "all" })
  return Result.isSuccess(decoded) ? Result.succeed(decoded.success) : Result.fail(new ServeError({ stage: "options", reasons: [`tokens: ${decoded.failure.message}`] }))
}

const reasonOf = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

// Every request that needs the database is refused (503) through the environment's `starting` while the database
// opens, so this one is never asked; it fails loudly if it is.
const notOpenYet = (kind: Database["kind"]): Database => {
  const refuse = () => Promise.reject(new DatabaseError({ operation: "query", reason: "the database is not open yet" }))
  return { kind, query: refuse, exec: refuse, transaction: refuse, run: refuse, close: () => Promise.resolve() }
}

/** Listens at once, then opens the database (migrating it) and starts the dispatcher: `onListening` is called with
 * the URL as soon as the service answers (`/healthz`; `/readyz` and the API answer 503 until it serves). Resolves to
 * the serving service, or to why it did not start (having stopped listening and given the data directory back). */
export const serve = async (options: ServeOptions): Promise<Result.Result<JobServer, ServeError>> => {
  const tokens = decodeTokens(options.tokens)
  if (Result.isFailure(tokens)) return Result.fail(tokens.failure)
  const defaultBackend = options.defaultBackend === undefined ? undefined : Schema.decodeUnknownResult(QueueBackend)(options.defaultBackend, { errors: "all" })
  if (defaultBackend !== undefined && Result.isFailure(defaultBackend)) {
    return Result.fail(new ServeError({ stage: "options", reasons: [`defaultBackend: ${defaultBackend.failure.message}`] }))
  }
  // The data directory is taken before the service listens: a second process on it refuses before printing a URL.
  const pglite = options.database === undefined && options.databaseUrl === undefined
  let lock: DataDirLock | undefined
  if (pglite && options.dataDir !== undefined) {
    const locked = await lockDataDir(options.dataDir).catch((cause: unknown) => Result.fail(`the data directory ${options.dataDir} cannot be locked: ${reasonOf(cause)}`))
    if (Result.isFailure(locked)) return Result.fail(new ServeError({ stage: "lock", reasons: [locked.failure] }))
    lock = locked.success
  }
  const unlock = () => lock?.release() ?? Promise.resolve()
  const clock = options.clock ?? defaultClock
  const random = options.random ?? defaultRandom
  let step: StartupStep | undefined = "database opening"
  let dispatcher: Dispatcher | undefined
  let stopping = false
  const accessLog = options.accessLog
  // The line that explains the seconds PGlite takes to open, or to create, its data directory: before the URL.
  if (pglite && options.dataDir !== undefined) process.stderr.write(pgliteOpeningNote(options.dataDir))
  let listening: Listening
  try {
    listening = await listen(
      { routes, openApi, tokens: tokens.success, db: notOpenYet(options.databaseUrl === undefined ? "pglite" : "postgres"), now: () => new Date(clock()).toISOString(), control: () => dispatcher?.control,
        limits: { ...defaultLimits, ...options.limits },
        signup: options.signup ?? false,
        starting: () => step,
        ...(options.webRoot === undefined ? {} : { webRoot: options.webRoot }),
        ...(defaultBackend === undefined ? {} : { defaultBackend: defaultBackend.success }),
        dispatcher: () => (options.dispatch === undefined ? "off" : stopping ? "stopped" : dispatcher === undefined ? "starting" : "running"),
        ...(accessLog === undefined ? {} : { accessLog: { format: accessLog.format, write: accessLog.write ?? ((line: string) => void process.stderr.write(`${line}\n`)) } })
      },
      options.host ?? "127.0.0.1",
      options.port ?? 0
    )
  } catch (cause) {
    await unlock()
    return Result.fail(new ServeError({ stage: "listen", reasons: [reasonOf(cause)] }))
  }
  options.onListening?.(listening.url)
  // The database is the layer of the one database service that fits the options; its scope closes it.
  const databaseScope = Effect.runSync(Scope.make())
  const closeDatabase = () => Effect.runPromise(Scope.close(databaseScope, Exit.void))
  const stopStarting = async (cause: unknown, stage: "database" | "stopped" = "database") => {
    await listening.close()
    await closeDatabase()
    await unlock()
    return Result.fail(new ServeError({ stage, reasons: [reasonOf(cause)] }))
  }
  // A stop asked for during a step: the listener closes at once, so clients stop waiting on 503s, while the step
  // itself runs to its end (its failure, if it fails, no longer matters); true when the service must not go on.
  let stopAsked = false
  void options.stop?.then(() => {
    stopAsked = true
  })
  const stoppedDuring = async (work: Promise<unknown>): Promise<boolean> => {
    if (options.stop === undefined) return false
    const settled = work.then(() => false, () => false)
    if (await Promise.race([settled, options.stop.then(() => true)])) {
      await listening.close()
      await settled
      return true
    }
    return stopAsked
  }
  const stoppedWhile = (step: StartupStep) => stopStarting(`asked to stop while ${startupReason(step)}`, "stopped")
  const layer = options.database ?? (options.databaseUrl === undefined ? pgliteLayer(options.dataDir) : postgresLayer(options.databaseUrl))
  let opened: Database
  try {
    const opening = Effect.runPromise(Layer.buildWithScope(layer, databaseScope))
    if (await stoppedDuring(opening)) return stoppedWhile("database opening")
    opened = Context.get(await opening, DatabaseService)
    step = "migrations"
    const migrating = migrate(opened).catch((cause: unknown) => {
      throw databaseError("migrate", cause)
    })
    if (await stoppedDuring(migrating)) return stoppedWhile("migrations")
    await migrating
  } catch (cause) {
    return stopStarting(cause)
  }
  // Closing the database also gives the data directory back.
  const db: Database = { ...opened, close: () => closeDatabase().finally(unlock) }
  let secret: string
  try {
    secret = await serviceSecret(db, "report", Buffer.from(random(32)).toString("hex"))
    if (defaultBackend !== undefined) await fillMissingBackends(db, defaultBackend.success, new Date(clock()).toISOString())
  } catch (cause) {
    return stopStarting(cause)
  }
  if (stopAsked) return stoppedWhile("migrations")
  step = "dispatcher starting"
  listening.update({ db, reportSecret: secret })
  // The dispatcher runs in a scope of its own: it stops before the listener, which stops before the database.
  const dispatcherScope = Effect.runSync(Scope.make())
  if (options.dispatch !== undefined) {
    const layer = dispatcherLayer(options.dispatch, { clock, entropy: random, secret, reportUrl: `${listening.url}${apiPrefix}` })
    const built = Layer.buildWithScope(Layer.provide(layer, Layer.succeed(DatabaseService, db)), dispatcherScope)
    dispatcher = Context.get(Effect.runSync(built), DispatcherService)
  }
  step = undefined
  let closing: Promise<void> | undefined
  const close = () =>
    (closing ??= ((stopping = true), Effect.runPromise(Scope.close(dispatcherScope, Exit.void))).then(() => listening.close()).then(() => db.close()))
  return Result.succeed({ url: listening.url, database: db.kind, ...(dispatcher === undefined ? {} : { dispatcher }), close })
}
