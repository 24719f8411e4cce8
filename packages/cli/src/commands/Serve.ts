// `dispatch serve`: the job service (Dioptra's job API) on embedded PGlite, or on the PostgreSQL that
// DATABASE_URL names; with a cluster target, also the dispatcher that takes queued jobs to it (its settings:
// ServeSettings.ts; the ServeOptions they make: serveOptionsOf). Runs until SIGINT or SIGTERM.
// `dispatch serve hash-token` makes a token and the entry that configures it.
import { randomBytes } from "node:crypto"
import { Effect, Layer, Result } from "effect"
import { Cluster, type ClusterError, loadInClusterKubeConfig, loadKubeConfig, makeKubeCluster, runsInPod } from "@dispatch/effects"
import { join } from "node:path"
import { kubeconfigFor, type SimServer, startSimServer, StoreJournal } from "@dispatch/sim"
import { hashToken, lockDataDir, serve } from "@dispatch/server"
import { serveOptionsOf } from "@dispatch/server/config"
import { BundledExamples } from "../BundledExamples.ts"
import type { CliIo } from "../CliIo.ts"
import { loadKube, openSession } from "../ClusterSession.ts"
import { endCommand } from "../CommandEnd.ts"
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

/** The cluster the service dispatches to, and how to end what it started. */
interface ServedCluster {
  readonly layer: Layer.Layer<Cluster, ClusterError>
  readonly close: () => Promise<void>
}

const clusterOf = async (io: CliIo, args: ServeArgs): Promise<Result.Result<ServedCluster | undefined, Failure>> => {
  const target = args.target
  if (target._tag === "None") return inPod(io, args)
  if (target._tag === "Kube") {
    const loaded = await loadKube(io, target.kubeconfig, undefined)
    if (Result.isFailure(loaded)) return Result.fail(loaded.failure)
    return Result.succeed(kubeServed(loaded.success))
  }
  // The embedded simulator serves one backend config's namespace and Kueue setup; queues whose backend
  // uses that config run their jobs on it.
  const config = await loadConfig(io, args.config ?? BundledExamples.config)
  if (Result.isFailure(config)) return Result.fail(config.failure)
  // Its objects and clock live in the data directory, so a restarted service finds the TrainJobs its jobs
  // run on. One process at a time: the journal is opened only under the directory's lock.
  const stateDir = join(args.dataDir, simStateDirName)
  const locked = await lockDataDir(stateDir).catch((cause: unknown) => Result.fail(`${stateDir} cannot be locked: ${reasonOf(cause)}`))
  if (Result.isFailure(locked)) return Result.fail(failed([locked.failure]))
  const lock = locked.success
  let journal: StoreJournal
  try {
    journal = StoreJournal.open(stateDir)
  } catch (cause) {
    await lock.release()
    return Result.fail(failed([reasonOf(cause)]))
  }
  const session = await openSession(io, target, config.success, journal)
  if (Result.isFailure(session)) {
    journal.close()
    await lock.release()
    return Result.fail(session.failure)
  }
  const simulator = session.success.simulator
  io.err(`dispatch serve: the embedded simulator's state is in ${stateDir}${simulator?.resumed === true ? `: resumed at ${new Date(simulator.now()).toISOString()}` : ""}`)
  const closeSession = () => session.success.close().finally(() => lock.release())
  if (target.kubeconfigOut === undefined || simulator === undefined) return Result.succeed({ layer: session.success.layer, close: closeSession })
  const kubeconfigOut = target.kubeconfigOut
  let server: SimServer
  try {
    server = await startSimServer({ simulator, port: 0 })
  } catch (cause) {
    await closeSession()
    return Result.fail(failed([reasonOf(cause)]))
  }
  const closeAll = () => server.close().finally(closeSession)
  const written = await io.writeFile(kubeconfigOut, kubeconfigFor(server, { namespace: config.success.namespace }))
  if (written.error !== undefined) {
    await closeAll()
    return Result.fail(failed([`cannot write ${kubeconfigOut}: ${written.error}`]))
  }
  io.err(`dispatch serve: the embedded simulator serves kubectl at ${server.url}: kubectl --kubeconfig ${kubeconfigOut} get trainjobs`)
  return Result.succeed({ layer: session.success.layer, close: closeAll })
}

const kubeServed = (config: KubeConfig): ServedCluster => ({ layer: Layer.succeed(Cluster, makeKubeCluster(config, clusterCallMs)), close: () => Promise.resolve() })

// No cluster flag: in a pod, its ServiceAccount's cluster, as client-node's in-cluster loader reads it (a kubeconfig
// given with --kubeconfig, or KUBECONFIG with --cluster, is used instead); elsewhere none.
const inPod = async (io: CliIo, args: ServeArgs): Promise<Result.Result<ServedCluster | undefined, Failure>> => {
  if (!runsInPod(process.env, args.serviceAccountRoot)) return Result.succeed(undefined)
  const loaded = await Effect.runPromise(Effect.result(loadInClusterKubeConfig(args.serviceAccountRoot)))
  if (Result.isFailure(loaded)) return Result.fail(failed(loaded.failure.reasons))
  io.err(`dispatch serve: in a pod: dispatching to ${loaded.success.getCurrentCluster()?.server ?? "its cluster"} as its ServiceAccount`)
  return Result.succeed(kubeServed(loaded.success))
}

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

const run = async (io: CliIo, args: ServeArgs, output: OutputFormat = "text"): Promise<Failure | undefined> => {
  const tokens = await tokensOf(io, args)
  if (Result.isFailure(tokens)) return tokens.failure
  const defaultBackend = args.defaultBackend === undefined ? undefined : await readDocument(io, args.defaultBackend)
  if (defaultBackend !== undefined && Result.isFailure(defaultBackend)) return defaultBackend.failure
  const cluster = await clusterOf(io, args)
  if (Result.isFailure(cluster)) return cluster.failure
  const postgres = args.databaseUrl !== undefined
  const where = postgres ? "PostgreSQL (DATABASE_URL)" : `PGlite in ${args.dataDir}`
  // The URL is printed as soon as the service listens: /healthz answers at once, /readyz and the API answer 503 with
  // Retry-After while the database opens. A database that does not open still ends the command with its error.
  const printUrl = (url: string) => {
    if (cluster.success === undefined) io.err("dispatch serve: no cluster given (--kubeconfig, --cluster or --sim): jobs are stored, not dispatched")
    io.err(`dispatch serve: listening; ${where} opening; OpenAPI at ${url}/api/v1/openapi.json; web page at ${url}/; /readyz answers 200 once it serves`)
    const summary: ServeSummary = {
      url: `${url}/api/v1`,
      openapi: `${url}/api/v1/openapi.json`,
      database: postgres ? "postgres" : "pglite",
      dispatching: cluster.success !== undefined,
      ...(tokens.made === undefined ? {} : { token: tokens.made })
    }
    printResult(io, output, summary, [summary.url])
  }
  const started = await serve(
    serveOptionsOf(args.service, {
      tokens: tokens.success,
      ...(defaultBackend === undefined ? {} : { defaultBackend: defaultBackend.success }),
      ...(cluster.success === undefined ? {} : { cluster: cluster.success.layer }),
      log: (line) => io.err(line),
      onListening: printUrl,
      // Ctrl-C or SIGTERM while the database opens stops listening at once and lets the database finish its step.
      stop: io.stopRequested
    })
  )
  if (Result.isFailure(started)) {
    await cluster.success?.close()
    const error = started.failure
    if (error.stage === "stopped") {
      io.err(`dispatch serve: stopped before it served (${error.reasons.join("; ")})`)
      return undefined
    }
    return error.stage === "options" ? usage(error.reasons, usageLine(Commands.serve)) : failed([error.message])
  }
  const server = started.success
  io.err(`${serveReadyLine}: ${where}`)
  await io.stopRequested
  await server.close()
  await cluster.success?.close()
  return undefined
}

/** Runs `dispatch serve`; resolves to the exit code. */
const runServe = async (list: ArgList, io: CliIo): Promise<number> => {
  const { output, rest, problems } = takeOutput(Commands.serve, list)
  const parsed = parseServeArgs(rest, io.env)
  const all = [...problems, ...problemsOf(parsed)]
  return endCommand(io, "serve", output, "problems" in parsed || all.length > 0 ? usage(all, usageLine(Commands.serve)) : await run(io, parsed.args, output))
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
