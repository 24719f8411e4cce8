// The options of the commands that talk to a cluster (start, find, open, hold, release, stop, probe,
// capabilities): which cluster, which backend config, which output; plus each one's own.
import type { Option } from "effect"
import type { Flag } from "effect/cli"
import { jobKeyOfName } from "@dispatch/render"
import type { CommandDeclaration } from "./Commands.ts"
import { type ArgList, type UsageError, type ValueReader, finish, readValues } from "./FlagReader.ts"

/** The cluster a command talks to: a kubeconfig (or client-node's default chain), or an embedded simulator. */
export type ClusterTarget =
  | { readonly _tag: "Kube"; readonly kubeconfig?: string; readonly context?: string }
  /** Seeded from `runtimes`; none given means the bundled example runtime. */
  | { readonly _tag: "Sim"; readonly runtimes: ReadonlyArray<string>; /** Each pod's command runs as a local child process. */ readonly exec?: boolean }

import type { OutputFormat } from "./Output.ts"

/** The options every cluster command takes. */
export interface ClusterOptions {
  readonly target: ClusterTarget
  /** The backend config file; absent means the bundled example config. */
  readonly config?: string
  /** Overrides the config's namespace. */
  readonly namespace?: string
  readonly output: OutputFormat
  /** Bounds the command's waits; absent, only the config's call bounds apply. */
  readonly timeoutMs?: number
}

/** The flags every cluster command declares (Commands.ts), whose values make its ClusterOptions. */
export interface ClusterFlags {
  readonly [name: string]: Flag.Flag<unknown>
  readonly kubeconfig: Flag.Flag<Option.Option<string>>
  readonly sim: Flag.Flag<boolean>
  readonly context: Flag.Flag<Option.Option<string>>
  readonly namespace: Flag.Flag<Option.Option<string>>
  readonly timeout: Flag.Flag<Option.Option<number>>
  readonly runtime: Flag.Flag<ReadonlyArray<string>>
  readonly exec: Flag.Flag<boolean>
  readonly config: Flag.Flag<Option.Option<string>>
  readonly output: Flag.Flag<string>
}

const readCluster = (options: ValueReader<ClusterFlags>, ownFormats: boolean): ClusterOptions => {
  const kubeconfig = options.value("kubeconfig")
  const context = options.value("context")
  const namespace = options.value("namespace")
  const timeoutMs = options.value("timeout")
  const sim = options.value("sim")
  const exec = options.value("exec")
  const runtimes = options.value("runtime")
  const config = options.value("config")
  // A command with formats of its own (a list's wide and name) reads -o itself; its result's format is its own.
  const output: OutputFormat = ownFormats ? "text" : (options.value("output") as OutputFormat)
  if (sim && kubeconfig !== undefined) options.problem("--sim and --kubeconfig cannot be used together")
  if (sim && context !== undefined) options.problem("--context names a kubeconfig's context: it cannot be used with --sim")
  if (!sim && runtimes.length > 0) options.problem("--runtime seeds the embedded simulator: it needs --sim")
  if (!sim && exec) options.problem("--exec runs the embedded simulator's pods as processes: it needs --sim")
  const target: ClusterTarget = sim
    ? { _tag: "Sim", runtimes, ...(exec ? { exec } : {}) }
    : { _tag: "Kube", ...(kubeconfig === undefined ? {} : { kubeconfig }), ...(context === undefined ? {} : { context }) }
  return { target, ...(config === undefined ? {} : { config }), ...(namespace === undefined ? {} : { namespace }), output, ...(timeoutMs === undefined ? {} : { timeoutMs }) }
}

/** Reads a cluster command's line: the cluster options plus the command's own values, read by `own`. */
export const parseClusterCommand = <F extends ClusterFlags, A>(
  command: CommandDeclaration<F>,
  list: ArgList,
  own: (options: ValueReader<F>) => () => A,
  ownFormats = false
): { readonly args: ClusterOptions & A } | UsageError => {
  const options = readValues(command, list)
  const cluster = readCluster(options as unknown as ValueReader<ClusterFlags>, ownFormats)
  const rest = own(options)
  return finish(options, () => ({ ...cluster, ...rest() }))
}

/** `--request R`, required. */
export const requestOption = (options: ValueReader<{ readonly request: Flag.Flag<string> }>): (() => { readonly request: string }) => {
  const request = options.value("request")
  return () => ({ request })
}

/** The flags that name a job other than by its TrainJob name. */
export interface JobFlags {
  readonly [name: string]: Flag.Flag<unknown>
  readonly job: Flag.Flag<Option.Option<string>>
  readonly submission: Flag.Flag<Option.Option<number>>
}

/** Names one submission of one job: `--job ID --submission N`. */
export interface JobSubmission {
  readonly job: string
  readonly submission: number
}

/** The job a command addresses: its TrainJob name (`dj-<job>-s<N>`, as dispatch prints it), or
 * `--job ID --submission N`; the submission must be a whole number. */
export const jobOptions = (options: ValueReader<JobFlags>): (() => JobSubmission) => {
  const name = options.argument()
  if (name !== undefined) {
    if (options.given("job") || options.given("submission")) options.problem(`give the TrainJob name "${name}" or --job and --submission, not both`)
    const key = jobKeyOfName(name)
    if (key === undefined) options.problem(`"${name}" is not the name of a TrainJob dispatch makes (dj-<job ID in lower case>-s<submission>)`)
    return () => key ?? { job: "", submission: 0 }
  }
  const job = options.value("job")
  if (job === undefined && !options.given("job")) options.problem("--job is required")
  const submission = options.value("submission")
  if (submission === undefined && !options.given("submission")) options.problem("--submission is required")
  return () => ({ job: job ?? "", submission: submission ?? 0 })
}

/** The flags that name the cluster and backend as given on this command line, for hints a user can paste. */
export const clusterFlagsOf = (args: ClusterOptions): ReadonlyArray<string> => {
  const target = args.target
  return [
    ...(target._tag === "Sim" ? ["--sim", ...target.runtimes.flatMap((r) => ["--runtime", r])] : []),
    ...(target._tag === "Kube" && target.kubeconfig !== undefined ? ["--kubeconfig", target.kubeconfig] : []),
    ...(target._tag === "Kube" && target.context !== undefined ? ["--context", target.context] : []),
    ...(args.config === undefined ? [] : ["--config", args.config]),
    ...(args.namespace === undefined ? [] : ["-n", args.namespace])
  ]
}

/** A command line as a user would type it: words with spaces or quotes are quoted for the shell. */
export const commandLine = (words: ReadonlyArray<string>): string =>
  words.map((w) => (/^[A-Za-z0-9_./:=@%+,-]+$/.test(w) ? w : `'${w.replaceAll("'", "'\\''")}'`)).join(" ")

/** No options of its own. */
export const noOptions = (): (() => Record<never, never>) => () => ({})
