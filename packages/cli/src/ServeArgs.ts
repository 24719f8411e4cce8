// The options of `dispatch serve` (the job service) and `dispatch serve hash-token`, read from their
// command lines with every problem named.
import { Commands } from "./Commands.ts"
import { parseDuration } from "./Duration.ts"
import { type ArgList, type UsageError, type ValueReader, finish, readValues } from "./FlagReader.ts"

/** Where the service takes jobs: nowhere (it only stores them), a cluster by kubeconfig, or an embedded simulator. */
export type ServeTarget =
  | { readonly _tag: "None" }
  | { readonly _tag: "Kube"; readonly kubeconfig?: string }
  | {
      readonly _tag: "Sim"
      readonly runtimes: ReadonlyArray<string>
      /** Each pod's command runs as a local child process. */
      readonly exec?: boolean
      /** Serve the simulator on loopback too, and write a kubeconfig for it here. */
      readonly kubeconfigOut?: string
    }

/** The options of `dispatch serve`. */
export interface ServeArgs {
  readonly host: string
  readonly port: number
  /** PGlite's data directory (ignored when DATABASE_URL names a PostgreSQL); with --sim, also the simulator's state (in `simulator/`). */
  readonly dataDir: string
  /** A YAML or JSON list of token entries; absent, one write token is made for this run and printed. */
  readonly tokens?: string
  readonly target: ServeTarget
  /** The backend config whose namespace and Kueue setup the embedded simulator serves. */
  readonly config?: string
  /** This process's name on its claims; a process restarted under its old name takes its claims over at once. */
  readonly instance?: string
  /** How each request's access-log line on stderr is written. */
  readonly logFormat: "text" | "json"
  /** Whether anyone may register a user. */
  readonly signup: boolean
  /** A YAML or JSON queue backend for queues registered without one. */
  readonly defaultBackend?: string
  /** How long an ended job's TrainJob and runtime copy stay on the cluster (`--retention`, `DISPATCH_RETENTION`). */
  readonly retentionMs?: number
  /** Least age of an ownerless runtime copy before the sweeper deletes it (`--sweep-grace`, `DISPATCH_SWEEP_GRACE`). */
  readonly sweepGraceMs?: number
}

/** The environment variables `dispatch serve` reads its cleanup settings from when no flag gives them. */
export const serveEnvVars = { retention: "DISPATCH_RETENTION", "sweep-grace": "DISPATCH_SWEEP_GRACE" } as const

type ServeFlags = (typeof Commands.serve)["flags"]

// A flag wins over its environment variable; either is a duration as kubectl spells it (0 allowed).
const durationOf = (options: ValueReader<ServeFlags>, flag: keyof typeof serveEnvVars, env: Readonly<Record<string, string | undefined>>): number | undefined => {
  if (options.given(flag)) return options.value(flag)
  const variable = serveEnvVars[flag]
  const text = env[variable] === "" ? undefined : env[variable]
  if (text === undefined) return undefined
  const ms = parseDuration(text)
  if (ms === undefined) options.problem(`${variable} "${text}" is not a duration (e.g. 30s, 5m, 24h)`)
  return ms
}

/** Reads the arguments that follow `serve`, and the cleanup settings from `env` where no flag gives them. */
export const parseServeArgs = (list: ArgList, env: Readonly<Record<string, string | undefined>> = {}): { readonly args: ServeArgs } | UsageError => {
  const options = readValues(Commands.serve, list)
  const host = options.value("host")
  const port = options.value("port")
  const dataDir = options.value("data-dir")
  const tokens = options.value("tokens")
  const kubeconfig = options.value("kubeconfig")
  const sim = options.value("sim")
  const exec = options.value("exec")
  // --cluster: client-node's default kubeconfig chain, without naming a file.
  const cluster = options.value("cluster")
  const runtimes = options.value("runtime")
  const config = options.value("config")
  const simKubeconfigOut = options.value("sim-kubeconfig-out")
  const instance = options.value("instance")
  const signup = options.value("signup")
  const defaultBackend = options.value("default-backend")
  const retentionMs = durationOf(options, "retention", env)
  const sweepGraceMs = durationOf(options, "sweep-grace", env)
  const logFormat = options.value("log-format")
  const targets = [sim, cluster, kubeconfig !== undefined].filter(Boolean).length
  if (targets > 1) options.problem("--sim, --cluster and --kubeconfig are alternatives: give one")
  if (!sim && runtimes.length > 0) options.problem("--runtime seeds the embedded simulator: it needs --sim")
  if (!sim && exec) options.problem("--exec runs the embedded simulator's pods as processes: it needs --sim")
  if (!sim && config !== undefined) options.problem("--config names the embedded simulator's backend: it needs --sim")
  if (!sim && simKubeconfigOut !== undefined) options.problem("--sim-kubeconfig-out serves the embedded simulator for kubectl: it needs --sim")
  const target: ServeTarget = sim
    ? { _tag: "Sim", runtimes, ...(exec ? { exec } : {}), ...(simKubeconfigOut === undefined ? {} : { kubeconfigOut: simKubeconfigOut }) }
    : cluster || kubeconfig !== undefined
      ? { _tag: "Kube", ...(kubeconfig === undefined ? {} : { kubeconfig }) }
      : { _tag: "None" }
  return finish(options, () => ({
    host,
    port,
    dataDir,
    ...(tokens === undefined ? {} : { tokens }),
    target,
    ...(config === undefined ? {} : { config }),
    ...(instance === undefined ? {} : { instance }),
    logFormat,
    signup,
    ...(defaultBackend === undefined ? {} : { defaultBackend }),
    ...(retentionMs === undefined ? {} : { retentionMs }),
    ...(sweepGraceMs === undefined ? {} : { sweepGraceMs })
  }))
}

/** The options of `dispatch serve hash-token`. */
export interface HashTokenArgs {
  readonly name: string
  readonly group: string
  readonly access: "write" | "read"
}

/** Reads the arguments that follow `serve hash-token`. */
export const parseHashTokenArgs = (list: ArgList): { readonly args: HashTokenArgs } | UsageError => {
  const options = readValues(Commands.hashToken, list)
  const name = options.value("name")
  const group = options.value("group")
  const readOnly = options.value("read-only")
  return finish(options, () => ({ name, group, access: readOnly ? ("read" as const) : ("write" as const) }))
}
