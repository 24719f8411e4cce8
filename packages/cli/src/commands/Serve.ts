// `dispatch serve`: the job service (Dioptra's job API) on embedded PGlite, or on the PostgreSQL that
// DATABASE_URL names; with a cluster target, also the dispatcher that takes queued jobs to it. Runs
// until SIGINT or SIGTERM. `dispatch serve hash-token` makes a token and the entry that configures it.
import { randomBytes } from "node:crypto"
import { Effect, Layer, Result } from "effect"
import { Cluster, type ClusterError, loadKubeConfig, makeKubeCluster } from "@dispatch/effects"
import { hashToken, serve } from "@dispatch/server"
import { BundledExamples } from "../BundledExamples.ts"
import type { CliIo } from "../CliIo.ts"
import { loadKube, openSession } from "../ClusterSession.ts"
import { endCommand } from "../CommandEnd.ts"
import { type Failure, failed, usage } from "../Failure.ts"
import { loadConfig, readDocument } from "../Inputs.ts"
import { type ServeArgs, parseHashTokenArgs, parseServeArgs } from "../ServeArgs.ts"
import { CommandSpecs, usageLine } from "../CommandSpec.ts"
import { type ArgList, type CommandImpl, problemsOf } from "../OptionReader.ts"

// The dispatcher's own per-call bound; each queue's backend config still bounds its Starts.
const clusterCallMs = 30_000

/** A fresh random bearer token and its configuration entry (only the salted hash is ever stored). */
const newToken = (name: string, group: string, access: "write" | "read") => {
  const token = randomBytes(24).toString("base64url")
  return { token, entry: { name, group, access, tokenHash: hashToken(token, randomBytes(16)) } }
}

const tokensOf = async (io: CliIo, args: ServeArgs): Promise<Result.Result<ReadonlyArray<unknown>, Failure>> => {
  if (args.tokens === undefined) {
    const made = newToken("admin", "default", "write")
    io.err(`dispatch serve: no --tokens: this run's write token for group "default" is ${made.token}`)
    return Result.succeed([made.entry])
  }
  const document = await readDocument(io, args.tokens)
  if (Result.isFailure(document)) return Result.fail(document.failure)
  return Array.isArray(document.success)
    ? Result.succeed(document.success)
    : Result.fail(usage([`${args.tokens}: must be a list of token entries {name, group, access, tokenHash}`]))
}

/** The cluster the service dispatches to, and how to end what it started. */
interface ServedCluster {
  readonly layer: Layer.Layer<Cluster, ClusterError>
  readonly close: () => Promise<void>
}

const clusterOf = async (io: CliIo, args: ServeArgs): Promise<Result.Result<ServedCluster | undefined, Failure>> => {
  const target = args.target
  if (target._tag === "None") return Result.succeed(undefined)
  if (target._tag === "Kube") {
    const loaded = await loadKube(io, target.kubeconfig, undefined)
    if (Result.isFailure(loaded)) return Result.fail(loaded.failure)
    return Result.succeed({ layer: Layer.succeed(Cluster, makeKubeCluster(loaded.success, clusterCallMs)), close: () => Promise.resolve() })
  }
  // The embedded simulator serves one backend config's namespace and Kueue setup; queues whose backend
  // uses that config run their jobs on it.
  const config = await loadConfig(io, args.config ?? BundledExamples.config)
  if (Result.isFailure(config)) return Result.fail(config.failure)
  const session = await openSession(io, target, config.success)
  return Result.isFailure(session) ? Result.fail(session.failure) : Result.succeed({ layer: session.success.layer, close: session.success.close })
}

const run = async (io: CliIo, args: ServeArgs): Promise<Failure | undefined> => {
  const tokens = await tokensOf(io, args)
  if (Result.isFailure(tokens)) return tokens.failure
  const defaultBackend = args.defaultBackend === undefined ? undefined : await readDocument(io, args.defaultBackend)
  if (defaultBackend !== undefined && Result.isFailure(defaultBackend)) return defaultBackend.failure
  const cluster = await clusterOf(io, args)
  if (Result.isFailure(cluster)) return cluster.failure
  const databaseUrl = process.env["DATABASE_URL"]
  const started = await serve({
    host: args.host,
    port: args.port,
    ...(databaseUrl === undefined || databaseUrl === "" ? { dataDir: args.dataDir } : { databaseUrl }),
    tokens: tokens.success,
    accessLog: { format: args.logFormat, write: (line) => io.err(line) },
    signup: args.signup,
    ...(defaultBackend === undefined ? {} : { defaultBackend: defaultBackend.success }),
    ...(cluster.success === undefined ? {} : { dispatch: { cluster: cluster.success.layer, ...(args.instance === undefined ? {} : { instance: args.instance }) } })
  })
  if (Result.isFailure(started)) {
    const error = started.failure
    return error.stage === "options" ? usage(error.reasons, usageLine(CommandSpecs.serve)) : failed([error.message])
  }
  const server = started.success
  // Notices first: the URL on stdout is what tells a caller the service is ready.
  io.err(`dispatch serve: ${server.database === "postgres" ? "PostgreSQL (DATABASE_URL)" : `PGlite in ${args.dataDir}`}; OpenAPI at ${server.url}/api/v1/openapi.json`)
  if (cluster.success === undefined) io.err("dispatch serve: no cluster given (--kubeconfig, --cluster or --sim): jobs are stored, not dispatched")
  io.out(`${server.url}/api/v1`)
  await io.stopRequested
  await server.close()
  await cluster.success?.close()
  return undefined
}

/** Runs `dispatch serve`; resolves to the exit code. */
const runServe = async (list: ArgList, io: CliIo): Promise<number> => {
  const parsed = parseServeArgs(list)
  return endCommand(io, "serve", "text", "problems" in parsed ? usage(parsed.problems, usageLine(CommandSpecs.serve)) : await run(io, parsed.args))
}

/** `dispatch serve` as the CLI runs it. */
export const serveCommand: CommandImpl = { check: (list) => problemsOf(parseServeArgs(list)), run: runServe }

/** Runs `dispatch serve hash-token`: prints a new token (once) and the entry to put in the --tokens file. */
const runHashToken = async (list: ArgList, io: CliIo): Promise<number> => {
  const parsed = parseHashTokenArgs(list)
  if ("problems" in parsed) return endCommand(io, "serve hash-token", "text", usage(parsed.problems, usageLine(CommandSpecs.hashToken)))
  const made = newToken(parsed.args.name, parsed.args.group, parsed.args.access)
  io.err(`token (shown once; give it to ${parsed.args.name} as "Authorization: Bearer <token>"):`)
  io.err(made.token)
  io.out(JSON.stringify(made.entry))
  return endCommand(io, "serve hash-token", "text", undefined)
}


/** `dispatch serve hash-token` as the CLI runs it. */
export const hashTokenCommand: CommandImpl = { check: (list) => problemsOf(parseHashTokenArgs(list)), run: runHashToken }
