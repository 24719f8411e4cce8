// The options of `dispatch serve` (the job service) and `dispatch serve hash-token`, read from their
// command lines with every problem named. `dispatch serve`'s settings are read, flag over environment over
// default, by their declarations' effect `Config` (ServeSettings.ts); this module adds what relates them.
import { Effect, Result } from "effect"
import { type ServiceConfig, ServiceSettings, type SettingsInput, type SettingValues, readSettings } from "@dispatch/server/config"
import { Commands, type Flags } from "./Commands.ts"
import { type ArgList, type UsageError, finish, readValues } from "./FlagReader.ts"
import { ServeSettings, TargetSettings } from "./ServeSettings.ts"

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
  /** Every setting of the service as read (what the fields below say one by one). */
  readonly service: ServiceConfig
  readonly host: string
  readonly port: number
  /** PGlite's data directory (ignored when DATABASE_URL names a PostgreSQL); with --sim, also the simulator's state (in `simulator/`). */
  readonly dataDir: string
  /** The PostgreSQL to store in (`DATABASE_URL`); PGlite in `dataDir` when absent. */
  readonly databaseUrl?: string
  /** A YAML or JSON list of token entries; absent, one write token is made for this run and printed. */
  readonly tokens?: string
  /** With no cluster flag: a pod's ServiceAccount files are read under this root (`/`) when KUBERNETES_SERVICE_HOST is set. */
  readonly serviceAccountRoot: string
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

// Each setting's flag as the line gives it (a switch as "true"). A flag the line's reader refused (given twice, empty, a word not
// among its choices) is named once, by that reader, and its setting is read as if absent: its variable, which
// the flag overrides, is not read in its place.
const settingsInput = (list: ArgList, env: SettingsInput["env"]): { readonly problems: ReadonlyArray<string>; readonly input: SettingsInput } => {
  // The settings' flags are declared from their settings, by name: read here by name too.
  const options = readValues<Flags>(Commands.serve, list)
  const flags: Record<string, string | ReadonlyArray<string>> = {}
  const overridden = { ...env }
  for (const setting of Object.values(ServeSettings)) {
    if (!setting.flag) continue
    const before = options.problems.length
    const value = options.value(setting.name)
    if (options.problems.length > before) {
      if (setting.env !== undefined) delete overridden[setting.env]
    } else if (options.given(setting.name)) flags[setting.name] = setting.kind === "list" ? (value as unknown as ReadonlyArray<string>) : String(value)
  }
  return { problems: options.problems, input: { flags, env: overridden } }
}

const read = <S extends typeof ServiceSettings | typeof TargetSettings>(settings: S, input: SettingsInput): Result.Result<SettingValues<S>, ReadonlyArray<string>> =>
  Effect.runSync(Effect.result(readSettings(settings, input).pipe(Effect.mapError((error) => error.problems))))

/** Reads the arguments that follow `serve`, and each setting from `env` where no flag gives it. */
export const parseServeArgs = (list: ArgList, env: Readonly<Record<string, string | undefined>> = {}): { readonly args: ServeArgs } | UsageError => {
  const line = settingsInput(list, env)
  const service = read(ServiceSettings, line.input)
  // The cluster's settings are flags without checks of their own: read, they are related below even when others failed.
  const targets = read(TargetSettings, line.input)
  const problems = [...line.problems, ...(Result.isFailure(service) ? service.failure : []), ...(Result.isFailure(targets) ? targets.failure : [])]
  if (Result.isFailure(targets)) return { _tag: "UsageError", problems }
  const { sim, cluster, kubeconfig, runtime: runtimes, exec, config, "sim-kubeconfig-out": simKubeconfigOut, "service-account-root": serviceAccountRoot } = targets.success
  const problem = (text: string) => void problems.push(text)
  if ([sim, cluster, kubeconfig !== undefined].filter(Boolean).length > 1) problem("--sim, --cluster and --kubeconfig are alternatives: give one")
  if (!sim && runtimes.length > 0) problem("--runtime seeds the embedded simulator: it needs --sim")
  if (!sim && exec) problem("--exec runs the embedded simulator's pods as processes: it needs --sim")
  if (!sim && config !== undefined) problem("--config names the embedded simulator's backend: it needs --sim")
  if (!sim && simKubeconfigOut !== undefined) problem("--sim-kubeconfig-out serves the embedded simulator for kubectl: it needs --sim")
  // --cluster: client-node's default kubeconfig chain, without naming a file.
  const target: ServeTarget = sim
    ? { _tag: "Sim", runtimes, ...(exec ? { exec } : {}), ...(simKubeconfigOut === undefined ? {} : { kubeconfigOut: simKubeconfigOut }) }
    : cluster || kubeconfig !== undefined
      ? { _tag: "Kube", ...(kubeconfig === undefined ? {} : { kubeconfig }) }
      : { _tag: "None" }
  if (Result.isFailure(service) || problems.length > 0) return { _tag: "UsageError", problems }
  const s = service.success
  return {
    args: {
      service: s,
      host: s.host,
      port: s.port,
      dataDir: s["data-dir"],
      ...(s["database-url"] === undefined ? {} : { databaseUrl: s["database-url"] }),
      ...(s.tokens === undefined ? {} : { tokens: s.tokens }),
      serviceAccountRoot,
      target,
      ...(config === undefined ? {} : { config }),
      ...(s.instance === undefined ? {} : { instance: s.instance }),
      logFormat: s["log-format"],
      signup: s.signup,
      ...(s["default-backend"] === undefined ? {} : { defaultBackend: s["default-backend"] }),
      ...(s.retention === undefined ? {} : { retentionMs: s.retention }),
      ...(s["sweep-grace"] === undefined ? {} : { sweepGraceMs: s["sweep-grace"] })
    }
  }
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
