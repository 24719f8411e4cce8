// `dispatch serve`: the job service (Dioptra's job API) on embedded PGlite, or on the PostgreSQL that
// DATABASE_URL names; with a cluster target, also the dispatcher that takes queued jobs to it (its settings:
// ServeSettings.ts; the ServeOptions they make: serveOptionsOf). Runs until SIGINT or SIGTERM.
// `dispatch serve hash-token` makes a token and the entry that configures it.
import { randomBytes } from "node:crypto"
import { Cause, Deferred, Effect, Exit, Fiber, Layer, Option, Result, type Scope } from "effect"
import { Cluster, type ClusterError, loadInClusterKubeConfig, loadKubeConfig, makeKubeCluster, runsInPod } from "@dispatch/effects"
import { join } from "node:path"
import { kubeconfigFor, startSimServer, StoreJournal } from "@dispatch/sim"
import { hashToken, lockDataDir, serveScoped } from "@dispatch/server"
import { serveOptionsOf } from "@dispatch/server/config"
import { BundledExamples } from "../BundledExamples.ts"
import type { CliIo } from "../CliIo.ts"
import { loadKube, openSession } from "../ClusterSession.ts"
import { endCommand } from "../CommandEnd.ts"
import { ExitCode } from "../ExitCode.ts"
import { type Failure, failed, usage } from "../Failure.ts"
import { loadConfig, readDocument } from "../Inputs.ts"
import { type ServeArgs, parseHashTokenArgs, parseServeArgs } from "../ServeArgs.ts"
import { Commands } from "../Commands.ts"
import { usageLine } from "../Usage.ts"
import { serveReadyLine } from "./ServeReady.ts"
import { type OutputFormat, printResult, takeOutput } from "../Output.ts"
import { type ArgList, type CommandImpl, problemsOf } from "../FlagReader.ts"

// The dispatcher's own per-call bound; each queue's backend config still bounds its Starts.
const clusterCallMs = 30_000

/** A fresh random bearer token and its configuration entry (only the salted hash is ever stored). */
const newToken = (name: string, group: string, access: "write" | "read") => {
  const token = randomBytes(24).toString("base64url")
  return { token, entry: { name, group, access, tokenHash: hashToken(token, randomBytes(16)) } }
}

// The token made for this run (no --tokens) is kept for `-o json|yaml`, whose reader has no other way to it.
const tokensOf = async (io: CliIo, args: ServeArgs): Promise<Result.Result<ReadonlyArray<unknown>, Failure> & { readonly made?: string }> => {
  if (args.tokens === undefined) {
    const made = newToken("admin", "default", "write")
    io.err(`dispatch serve: no --tokens: this run's write token for group "default" is ${made.token}`)
    return Object.assign(Result.succeed([made.entry]), { made: made.token })
  }
  const document = await readDocument(io, args.tokens)
  if (Result.isFailure(document)) return Result.fail(document.failure)
  return Array.isArray(document.success)
    ? Result.succeed(document.success)
    : Result.fail(usage([`${args.tokens}: must be a list of token entries {name, group, access, tokenHash}`]))
}

/** client-node's KubeConfig, as the effects package loads it. */
type KubeConfig = Effect.Success<ReturnType<typeof loadKubeConfig>>

/** The cluster the service dispatches to. */
type ClusterLayer = Layer.Layer<Cluster, ClusterError>

/** A step of the CLI's own Promise API (files through CliIo, client-node's loaders) as an Effect failing with its Failure. */
const step = <A>(run: () => Promise<Result.Result<A, Failure>>): Effect.Effect<A, Failure> => Effect.flatMap(Effect.promise(run), Effect.fromResult)

/** Something opened (`open`, which may throw) and closed with the scope, its throw a Failure. */
const opened = <A>(open: () => Promise<A>, close: (a: A) => Promise<void>): Effect.Effect<A, Failure, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({ try: open, catch: (cause) => failed([reasonOf(cause)]) }),
    (a) => Effect.promise(() => close(a))
  )

/** The cluster the service dispatches to, acquired in the command's scope with its release: the embedded simulator
 * (its state directory's lock, its journal and session, and with --kubeconfig-out its kubectl server), a kubeconfig's
 * cluster, or in a pod its ServiceAccount's; none without one. */
const clusterOf = (io: CliIo, args: ServeArgs): Effect.Effect<ClusterLayer | undefined, Failure, Scope.Scope> =>
  Effect.gen(function* () {
    const target = args.target
    if (target._tag === "None") return yield* inPod(io, args)
    if (target._tag === "Kube") return kubeServed(yield* step(() => loadKube(io, target.kubeconfig, undefined)))
    // The embedded simulator serves one backend config's namespace and Kueue setup; queues whose backend
    // uses that config run their jobs on it.
    const config = yield* step(() => loadConfig(io, args.config ?? BundledExamples.config))
    // Its objects and clock live in the data directory, so a restarted service finds the TrainJobs its jobs
    // run on. One process at a time: the journal is opened only under the directory's lock.
    const stateDir = join(args.dataDir, simStateDirName)
    yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => lockDataDir(stateDir), catch: (cause) => failed([`${stateDir} cannot be locked: ${reasonOf(cause)}`]) }).pipe(
        Effect.flatMap((locked) => (Result.isSuccess(locked) ? Effect.succeed(locked.success) : Effect.fail(failed([locked.failure]))))
      ),
      (lock) => Effect.promise(() => lock.release())
    )
    const session = yield* Effect.acquireRelease(
      Effect.gen(function* () {
        const journal = yield* Effect.try({ try: () => StoreJournal.open(stateDir), catch: (cause) => failed([reasonOf(cause)]) })
        // The session, once open, closes the journal with itself.
        return yield* step(() => openSession(io, target, config, journal)).pipe(Effect.tapError(() => Effect.sync(() => journal.close())))
      }),
      (session) => Effect.promise(() => session.close())
    )
    const simulator = session.simulator
    io.err(`dispatch serve: the embedded simulator's state is in ${stateDir}${simulator?.resumed === true ? `: resumed at ${new Date(simulator.now()).toISOString()}` : ""}`)
    if (target.kubeconfigOut === undefined || simulator === undefined) return session.layer
    const kubeconfigOut = target.kubeconfigOut
    const server = yield* opened(() => startSimServer({ simulator, port: 0 }), (server) => server.close())
    const written = yield* Effect.promise(() => io.writeFile(kubeconfigOut, kubeconfigFor(server, { namespace: config.namespace })))
    if (written.error !== undefined) return yield* Effect.fail(failed([`cannot write ${kubeconfigOut}: ${written.error}`]))
    io.err(`dispatch serve: the embedded simulator serves kubectl at ${server.url}: kubectl --kubeconfig ${kubeconfigOut} get trainjobs`)
    return session.layer
  })

const kubeServed = (config: KubeConfig): ClusterLayer => Layer.succeed(Cluster, makeKubeCluster(config, clusterCallMs))

// No cluster flag: in a pod, its ServiceAccount's cluster, as client-node's in-cluster loader reads it (a kubeconfig
// given with --kubeconfig, or KUBECONFIG with --cluster, is used instead); elsewhere none.
const inPod = (io: CliIo, args: ServeArgs): Effect.Effect<ClusterLayer | undefined, Failure> =>
  Effect.gen(function* () {
    if (!runsInPod(process.env, args.serviceAccountRoot)) return undefined
    const loaded = yield* Effect.mapError(loadInClusterKubeConfig(args.serviceAccountRoot), (error) => failed(error.reasons))
    io.err(`dispatch serve: in a pod: dispatching to ${loaded.getCurrentCluster()?.server ?? "its cluster"} as its ServiceAccount`)
    return kubeServed(loaded)
  })

/** The simulator's state directory inside the service's data directory. */
export const simStateDirName = "simulator"

const reasonOf = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

/** What `dispatch serve -o json|yaml` prints once it listens. */
export interface ServeSummary {
  /** The API's base URL. */
  readonly url: string
  readonly openapi: string
  readonly database: "pglite" | "postgres"
  /** Whether queued jobs are dispatched to a cluster. */
  readonly dispatching: boolean
  /** The write token made for this run, when no --tokens was given. */
  readonly token?: string
}

/** `dispatch serve`'s work in the scope it runs in: its cluster, then the service (`serveScoped`), each released
 * with the scope in reverse order; it prints the URL as soon as the service listens and the ready line once it
 * serves, then serves until interrupted (the stop). Fails with the Failure that ends the command. Interrupted while
 * the service starts, it asks the service to stop (it stops listening at once and lets the step under way finish),
 * waits for that, and says it stopped before it served. */
const serving = (io: CliIo, args: ServeArgs, output: OutputFormat): Effect.Effect<never, Failure, Scope.Scope> =>
  Effect.gen(function* () {
    const tokens = yield* Effect.promise(() => tokensOf(io, args))
    if (Result.isFailure(tokens)) return yield* Effect.fail(tokens.failure)
    const defaultBackendFile = args.defaultBackend
    const defaultBackend = defaultBackendFile === undefined ? undefined : yield* step(() => readDocument(io, defaultBackendFile))
    const cluster = yield* clusterOf(io, args)
    const postgres = args.databaseUrl !== undefined
    const where = postgres ? "PostgreSQL (DATABASE_URL)" : `PGlite in ${args.dataDir}`
    // The URL is printed as soon as the service listens: /healthz answers at once, /readyz and the API answer 503 with
    // Retry-After while the database opens. A database that does not open still ends the command with its error.
    const printUrl = (url: string) => {
      if (cluster === undefined) io.err("dispatch serve: no cluster given (--kubeconfig, --cluster or --sim): jobs are stored, not dispatched")
      io.err(`dispatch serve: listening; ${where} opening; OpenAPI at ${url}/api/v1/openapi.json; web page at ${url}/; /readyz answers 200 once it serves`)
      const summary: ServeSummary = {
        url: `${url}/api/v1`,
        openapi: `${url}/api/v1/openapi.json`,
        database: postgres ? "postgres" : "pglite",
        dispatching: cluster !== undefined,
        ...(tokens.made === undefined ? {} : { token: tokens.made })
      }
      printResult(io, output, summary, [summary.url])
    }
    const options = serveOptionsOf(args.service, {
      tokens: tokens.success,
      ...(defaultBackend === undefined ? {} : { defaultBackend }),
      ...(cluster === undefined ? {} : { cluster }),
      log: (line) => io.err(line),
      onListening: printUrl
    })
    yield* Effect.uninterruptibleMask((restore) =>
      Effect.gen(function* () {
        const stop = yield* Deferred.make<void>()
        // In the command's scope (the fiber's context), so the service is released with it, before the cluster.
        const starting = yield* Effect.forkChild(serveScoped({ ...options, stop: Deferred.await(stop) }))
        return yield* restore(Fiber.join(starting)).pipe(
          Effect.onInterrupt(() =>
            Effect.gen(function* () {
              yield* Deferred.succeed(stop, undefined)
              const started = yield* Fiber.await(starting)
              const error = Exit.isFailure(started) ? Cause.findErrorOption(started.cause) : Option.none()
              if (Option.isSome(error) && error.value.stage === "stopped") io.err(`dispatch serve: stopped before it served (${error.value.reasons.join("; ")})`)
            })
          )
        )
      })
    ).pipe(Effect.mapError((error) => (error.stage === "options" ? usage(error.reasons, usageLine(Commands.serve)) : failed([error.message]))))
    io.err(`${serveReadyLine}: ${where}`)
    return yield* Effect.never
  })

/** `dispatch serve` as an Effect: its exit code once it ends by itself (a usage problem, a start that failed), or
 * interrupted, which is the stop it serves until (its exit code then `serveExitCode`'s). */
export const serveMain = (list: ArgList, io: CliIo): Effect.Effect<number> =>
  Effect.suspend(() => {
    const { output, rest, problems } = takeOutput(Commands.serve, list)
    const parsed = parseServeArgs(rest, io.env)
    const all = [...problems, ...problemsOf(parsed)]
    if ("problems" in parsed || all.length > 0) return Effect.succeed(endCommand(io, "serve", output, usage(all, usageLine(Commands.serve))))
    return Effect.scoped(serving(io, parsed.args, output)).pipe(Effect.catch((failure) => Effect.succeed(endCommand(io, "serve", output, failure))))
  })

/** The exit code of `serveMain`'s end: its own code, 0 for the stop it was asked (an interruption), 1 for a defect.
 * (Typed for any Exit: NodeRuntime.runMain's teardown is.) */
export const serveExitCode = (exit: Exit.Exit<unknown, unknown>): number =>
  Exit.isSuccess(exit) ? (typeof exit.value === "number" ? exit.value : ExitCode.failure) : Cause.hasInterruptsOnly(exit.cause) ? ExitCode.ok : ExitCode.failure

/** Runs `dispatch serve` at the CLI runner's Promise edge (a test, or an embedder of `runCli`): `serveMain`, stopped
 * when `io.stopRequested` resolves; resolves to the exit code. */
const runServe = async (list: ArgList, io: CliIo): Promise<number> => {
  const fiber = Effect.runFork(serveMain(list, io))
  void io.stopRequested.then(() => Effect.runFork(Fiber.interrupt(fiber)))
  const exit = await Effect.runPromise(Fiber.await(fiber))
  if (Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause)) throw Cause.squash(exit.cause)
  return serveExitCode(exit)
}

/** `dispatch serve` as the CLI runs it. */
export const serveCommand: CommandImpl = {
  check: (list) => {
    const { rest, problems } = takeOutput(Commands.serve, list)
    return [...problems, ...problemsOf(parseServeArgs(rest))]
  },
  run: runServe
}

/** Runs `dispatch serve hash-token`: prints a new token (once) and the entry to put in the --tokens file. */
const runHashToken = async (list: ArgList, io: CliIo): Promise<number> => {
  const parsed = parseHashTokenArgs(list)
  if ("problems" in parsed) return endCommand(io, "serve hash-token", "text", usage(parsed.problems, usageLine(Commands.hashToken)))
  const made = newToken(parsed.args.name, parsed.args.group, parsed.args.access)
  io.err(`token (shown once; give it to ${parsed.args.name} as "Authorization: Bearer <token>"):`)
  io.err(made.token)
  io.out(JSON.stringify(made.entry))
  return endCommand(io, "serve hash-token", "text", undefined)
}


/** `dispatch serve hash-token` as the CLI runs it. */
export const hashTokenCommand: CommandImpl = { check: (list) => problemsOf(parseHashTokenArgs(list)), run: runHashToken }
