// The options of `dispatch serve` (the job service) and `dispatch serve hash-token`, read from their
// command lines with every problem named.
import { parseDuration } from "./ClusterArgs.ts"
import { type ArgList, type UsageError, finish, readOptions } from "./OptionReader.ts"

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

const portOf = (options: ReturnType<typeof readOptions>, fallback: number): number => {
  const text = options.single("port")
  if (text === undefined) return fallback
  const port = Number(text)
  if (!/^\d+$/.test(text) || port > 65535) options.problem(`--port "${text}" is not a port number (0-65535)`)
  return port
}

// A flag wins over its environment variable; either is a duration as kubectl spells it (0 allowed).
const durationOf = (options: ReturnType<typeof readOptions>, flag: keyof typeof serveEnvVars, env: Readonly<Record<string, string | undefined>>): number | undefined => {
  const given = options.single(flag)
  const variable = serveEnvVars[flag]
  const text = given ?? (env[variable] === "" ? undefined : env[variable])
  if (text === undefined) return undefined
  const ms = parseDuration(text)
  if (ms === undefined) options.problem(`${given === undefined ? variable : `--${flag}`} "${text}" is not a duration (e.g. 30s, 5m, 24h)`)
  return ms
}

/** Reads the arguments that follow `serve`, and the cleanup settings from `env` where no flag gives them. */
export const parseServeArgs = (list: ArgList, env: Readonly<Record<string, string | undefined>> = {}): { readonly args: ServeArgs } | UsageError => {
  const options = readOptions(list, {
    values: ["host", "port", "data-dir", "tokens", "kubeconfig", "config", "instance", "log-format", "sim-kubeconfig-out", "default-backend", "retention", "sweep-grace"],
    multi: ["runtime"],
    switches: ["sim", "cluster", "exec", "signup"]
  })
  const host = options.single("host") ?? "127.0.0.1"
  const port = portOf(options, 8080)
  const dataDir = options.single("data-dir") ?? "dispatch-data"
  const tokens = options.single("tokens")
  const kubeconfig = options.single("kubeconfig")
  const sim = options.switch("sim")
  const exec = options.switch("exec")
  // --cluster: client-node's default kubeconfig chain, without naming a file.
  const cluster = options.switch("cluster")
  const runtimes = options.list("runtime")
  const config = options.single("config")
  const simKubeconfigOut = options.single("sim-kubeconfig-out")
  const instance = options.single("instance")
  const logFormat = options.single("log-format") ?? "text"
  const signup = options.switch("signup")
  const defaultBackend = options.single("default-backend")
  const retentionMs = durationOf(options, "retention", env)
  const sweepGraceMs = durationOf(options, "sweep-grace", env)
  if (logFormat !== "text" && logFormat !== "json") options.problem(`--log-format "${logFormat}" is not one of text, json`)
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
    logFormat: logFormat === "json" ? "json" : "text",
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
  const options = readOptions(list, { values: ["name", "group"], switches: ["read-only"] })
  const name = options.required("name")
  const group = options.required("group")
  const readOnly = options.switch("read-only")
  return finish(options, () => ({ name: name ?? "", group: group ?? "", access: readOnly ? ("read" as const) : ("write" as const) }))
}
