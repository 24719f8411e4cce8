import { randomBytes } from "node:crypto"
import { Cause, Clock, Context, Effect, Exit, Fiber, Layer, Option, Result, Schema, Scope } from "effect"
import { QueueBackend } from "@dispatch/jobs"
import { TokenEntry } from "./http/Auth.ts"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import { resources } from "./store/Resources.ts"
import { lockDataDir } from "./store/DataDirLock.ts"
import { DatabaseError, databaseError, DatabaseKind, reasonOf as failureReason, type DatabaseLayer } from "./store/Database.ts"
import { dispatcherLayer, DispatcherService, type DispatchOptions, type Dispatcher } from "./dispatch/Dispatcher.ts"
import { postgresCompiler, sqlErrorOf } from "./store/PostgresDialect.ts"
import { queueGates } from "./store/QueueGates.ts"
import { jobControlRoutes } from "./http/JobControlRoutes.ts"
import { jobRoutes } from "./http/JobRoutes.ts"
import { reportRoutes } from "./http/ReportRoutes.ts"
import { apiPrefix, listening as listeningOn, openApiDocument } from "./http/ApiServer.ts"
import { defaultLimits, type AnswerLimits } from "./wire/Limits.ts"
import { migrate } from "./store/Migrations.ts"
import { pgliteLayer, pgliteOpeningNote } from "./store/PgliteDatabase.ts"
import { postgresLayer } from "./store/PostgresDatabase.ts"
import type { LogFormat } from "./ops/AccessLog.ts"
import { startupReason, type StartupStep } from "./ops/Readiness.ts"
import { resourceRoutes } from "./http/ResourceRoutes.ts"
import { accountRoutes } from "./http/AccountRoutes.ts"

/** Every endpoint of the service. */
export const routes = [...accountRoutes, ...resourceRoutes, ...jobRoutes, ...jobControlRoutes, ...reportRoutes]

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
  /** The database's layer to open instead of the one `databaseUrl` or `dataDir` names (no data directory lock is
   * taken): embedding the service over a database of one's own, or holding its opening in a test. */
  readonly database?: DatabaseLayer
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

/** A running service in the scope it runs in: closing the scope stops it. */
export type ServingService = Omit<JobServer, "close">

/** How to run the job service as a scoped Effect: as `ServeOptions`, with the stop an Effect that completes when the
 * program is asked to stop. */
export interface ScopedServeOptions extends Omit<ServeOptions, "stop"> {
  /** Completes when the program is asked to stop; asked while the service starts, it stops as `ServeOptions.stop`. */
  readonly stop?: Effect.Effect<void>
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

const defaultRandom = (n: number): ReadonlyArray<number> => [...randomBytes(n)]

const decodeTokens = (tokens: ReadonlyArray<unknown>): Result.Result<ReadonlyArray<TokenEntry>, ServeError> => {
  const decoded = Schema.decodeUnknownResult(Schema.Array(TokenEntry))(tokens, { errors: "all" })
  return Result.isSuccess(decoded) ? Result.succeed(decoded.success) : Result.fail(new ServeError({ stage: "options", reasons: [`tokens: ${decoded.failure.message}`] }))
}

const reasonOf = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

// Every request that needs the database is refused (503) through the environment's `starting` while the database
// opens, so this client is never asked; every statement on it fails loudly if it is.
const notOpenYet: Effect.Effect<SqlClient.SqlClient> = SqlClient.make({
  acquirer: Effect.fail(sqlErrorOf("connect")(new DatabaseError({ operation: "query", reason: "the database is not open yet" }))),
  compiler: postgresCompiler,
  driver: "not open",
  spanAttributes: []
}).pipe(Effect.provide(Reactivity.layer))

/** What `serve` checked of its options before it starts anything. */
interface Checked {
  readonly tokens: ReadonlyArray<TokenEntry>
  readonly defaultBackend: QueueBackend | undefined
}

/**
 * The service as one graph in the scope it runs in, each part acquired with its release: the data directory's lock,
 * the listener (answering 503 while it starts), the database (opened by its layer, then migrated), the report
 * secret and default backends, the dispatcher (its layer over the database), then the operations' view of it.
 * The scope releases them in this order: the dispatcher, the listener, the database, the lock.
 */
const running = (options: ScopedServeOptions, checked: Checked): Effect.Effect<ServingService, ServeError, Scope.Scope> =>
  Effect.gen(function* () {
    // The data directory is taken before the service listens: a second process on it refuses before printing a URL.
    const pglite = options.database === undefined && options.databaseUrl === undefined
    const dataDir = pglite ? options.dataDir : undefined
    if (dataDir !== undefined) {
      yield* Effect.acquireRelease(
        Effect.flatMap(
          Effect.tryPromise({ try: () => lockDataDir(dataDir), catch: (cause) => `the data directory ${dataDir} cannot be locked: ${reasonOf(cause)}` }),
          Effect.fromResult
        ).pipe(Effect.mapError((reason) => new ServeError({ stage: "lock", reasons: [reason] }))),
        (lock) => Effect.promise(() => lock.release())
      )
    }
    // The clock of the fiber the service runs in (effect's default, or one a caller provided), read where the parts
    // that take a `() => number` ask for the time.
    const clock = options.clock ?? (yield* Clock.clockWith((current) => Effect.succeed(() => current.currentTimeMillisUnsafe())))
    const random = options.random ?? defaultRandom
    let step: StartupStep | undefined = "database opening"
    let dispatcher: Dispatcher | undefined
    let stopping = false
    const accessLog = options.accessLog
    // The line that explains the seconds PGlite takes to open, or to create, its data directory: before the URL.
    if (dataDir !== undefined) process.stderr.write(pgliteOpeningNote(dataDir))
    const unopened = yield* notOpenYet
    const listening = yield* listeningOn(
      { routes, openApi, tokens: checked.tokens, db: unopened, now: () => new Date(clock()).toISOString(), control: () => dispatcher?.control,
        limits: { ...defaultLimits, ...options.limits },
        signup: options.signup ?? false,
        starting: () => step,
        ...(options.webRoot === undefined ? {} : { webRoot: options.webRoot }),
        ...(checked.defaultBackend === undefined ? {} : { defaultBackend: checked.defaultBackend }),
        dispatcher: () => (options.dispatch === undefined ? "off" : stopping ? "stopped" : dispatcher === undefined ? "starting" : "running"),
        ...(accessLog === undefined ? {} : { accessLog: { format: accessLog.format, write: accessLog.write ?? ((line: string) => void process.stderr.write(`${line}\n`)) } })
      },
      options.host ?? "127.0.0.1",
      options.port ?? 0
    ).pipe(Effect.mapError((cause) => new ServeError({ stage: "listen", reasons: [reasonOf(cause)] })))
    options.onListening?.(listening.url)
    const stop = options.stop
    let stopAsked = false
    if (stop !== undefined) {
      yield* Effect.forkScoped(
        Effect.andThen(
          stop,
          Effect.sync(() => {
            stopAsked = true
          })
        )
      )
    }
    const stoppedWhile = (at: StartupStep) => new ServeError({ stage: "stopped", reasons: [`asked to stop while ${startupReason(at)}`] })
    // A stop asked for during a step: the listener closes at once, so clients stop waiting on 503s, while the step
    // itself runs to its end (its failure, if it fails, no longer matters).
    const startupStep = <A, R>(at: StartupStep, work: Effect.Effect<A, unknown, R>): Effect.Effect<A, ServeError, R> =>
      Effect.gen(function* () {
        step = at
        const fiber = yield* Effect.forkChild(work)
        const stopped = stop === undefined ? Effect.never : Effect.as(stop, "stopped" as const)
        const first = yield* Effect.raceFirst(Fiber.await(fiber), stopped)
        if (first === "stopped") {
          yield* listening.close
          yield* Fiber.await(fiber)
          return yield* Effect.fail(stoppedWhile(at))
        }
        if (stopAsked) return yield* Effect.fail(stoppedWhile(at))
        if (Exit.isFailure(first)) return yield* Effect.fail(new ServeError({ stage: "database", reasons: [reasonOf(Cause.squash(first.cause))] }))
        return first.value
      })
    const layer = options.database ?? (options.databaseUrl === undefined ? pgliteLayer(options.dataDir) : postgresLayer(options.databaseUrl))
    const database = yield* startupStep("database opening", Layer.build(layer))
    yield* startupStep("migrations", Effect.mapError(Effect.provideContext(migrate(), database), (cause) => databaseError("migrate", cause)))
    // The listener stops before the database closes (closing its own scope, inside the service's, is then a no-op).
    yield* Effect.addFinalizer(() => listening.close)
    const prepared = yield* Effect.gen(function* () {
      const secret = yield* Effect.flatMap(queueGates, (gates) => gates.serviceSecret("report", Buffer.from(random(32)).toString("hex")))
      const backend = checked.defaultBackend
      if (backend !== undefined) yield* Effect.flatMap(resources, (store) => store.fillMissingBackends(backend, new Date(clock()).toISOString()))
      return secret
    }).pipe(
      Effect.provideContext(database),
      Effect.mapError((cause) => new ServeError({ stage: "database", reasons: [failureReason(cause)] }))
    )
    if (stopAsked) return yield* Effect.fail(stoppedWhile("migrations"))
    step = "dispatcher starting"
    listening.update({ db: Context.get(database, SqlClient.SqlClient), reportSecret: prepared })
    if (options.dispatch !== undefined) {
      const layer = dispatcherLayer(options.dispatch, { clock, entropy: random, secret: prepared, reportUrl: `${listening.url}${apiPrefix}` })
      dispatcher = Context.get(yield* Layer.build(Layer.provide(layer, Layer.succeedContext(database))), DispatcherService)
    }
    // Closing starts here: readiness says the dispatcher stopped before it stops.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        stopping = true
      })
    )
    step = undefined
    return { url: listening.url, database: Context.get(database, DatabaseKind), ...(dispatcher === undefined ? {} : { dispatcher }) }
  })

const checkedOptions = (options: Pick<ServeOptions, "tokens" | "defaultBackend">): Result.Result<Checked, ServeError> => {
  const tokens = decodeTokens(options.tokens)
  if (Result.isFailure(tokens)) return Result.fail(tokens.failure)
  const defaultBackend = options.defaultBackend === undefined ? undefined : Schema.decodeUnknownResult(QueueBackend)(options.defaultBackend, { errors: "all" })
  if (defaultBackend !== undefined && Result.isFailure(defaultBackend)) {
    return Result.fail(new ServeError({ stage: "options", reasons: [`defaultBackend: ${defaultBackend.failure.message}`] }))
  }
  return Result.succeed({ tokens: tokens.success, defaultBackend: defaultBackend?.success })
}

/** The service as a scoped Effect: listens at once, then opens the database (migrating it) and starts the dispatcher
 * (`onListening` is called with the URL as soon as the service answers); succeeds once it serves, and runs until the
 * scope closes, which stops the dispatcher, stops listening, waits for open requests, closes the database and gives
 * the data directory back. Fails with why it did not start, having released what it took. To stop it while it starts
 * and let the database step under way finish, complete `stop` (interrupting it interrupts that step too). */
export const serveScoped = (options: ScopedServeOptions): Effect.Effect<ServingService, ServeError, Scope.Scope> =>
  Effect.flatMap(Effect.fromResult(checkedOptions(options)), (checked) => running(options, checked))

/** Listens at once, then opens the database (migrating it) and starts the dispatcher: `onListening` is called with
 * the URL as soon as the service answers (`/healthz`; `/readyz` and the API answer 503 until it serves). Resolves to
 * the serving service, or to why it did not start (having stopped listening and given the data directory back).
 * The Promise form of `serveScoped`. */
export const serve = async (options: ServeOptions): Promise<Result.Result<JobServer, ServeError>> => {
  const checked = checkedOptions(options)
  if (Result.isFailure(checked)) return Result.fail(checked.failure)
  const { stop, ...rest } = options
  const scoped: ScopedServeOptions = stop === undefined ? rest : { ...rest, stop: Effect.promise(() => stop) }
  // The process edge: the whole service runs in this one scope, which `close` closes.
  const scope = Effect.runSync(Scope.make())
  const started = await Effect.runPromiseExit(Scope.provide(running(scoped, checked.success), scope))
  if (Exit.isFailure(started)) {
    await Effect.runPromise(Scope.close(scope, started))
    const failure = Cause.findErrorOption(started.cause)
    return Result.fail(Option.isSome(failure) ? failure.value : new ServeError({ stage: "database", reasons: [reasonOf(Cause.squash(started.cause))] }))
  }
  let closing: Promise<void> | undefined
  return Result.succeed({ ...started.value, close: () => (closing ??= Effect.runPromise(Scope.close(scope, Exit.void))) })
}
