// The options of the commands that talk to a cluster (start, find, open, hold, release, stop, probe,
// capabilities): which cluster, which backend config, which output; plus each one's own.
import { type ArgList, type OptionReader, type UsageError, finish, readOptions } from "./OptionReader.ts"

/** The cluster a command talks to: a kubeconfig (or client-node's default chain), or an embedded simulator. */
export type ClusterTarget =
  | { readonly _tag: "Kube"; readonly kubeconfig?: string; readonly context?: string }
  /** Seeded from `runtimes`; none given means the bundled example runtime. */
  | { readonly _tag: "Sim"; readonly runtimes: ReadonlyArray<string>; /** Each pod's command runs as a local child process. */ readonly exec?: boolean }

import { jobKeyOfName } from "@dispatch/render"
import { type OutputFormat, OutputFormats } from "./Output.ts"

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

const clusterFlags = { values: ["kubeconfig", "context", "namespace", "config", "output", "timeout"], multi: ["runtime"], switches: ["sim", "exec"] } as const

/** A duration as kubectl spells it: `90s`, `2m`, `1h`, `500ms`, or a whole number of seconds. */
export const parseDuration = (text: string): number | undefined => {
  const match = /^(\d{1,9})(ms|s|m|h)?$/.exec(text)
  if (match === null) return undefined
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? "s") as "ms" | "s" | "m" | "h"]
  return Number(match[1]) * unit
}

/** `--timeout D`: a duration, or a problem. */
export const timeoutOption = (options: OptionReader): number | undefined => {
  const text = options.single("timeout")
  if (text === undefined) return undefined
  const ms = parseDuration(text)
  if (ms === undefined || ms === 0) options.problem(`--timeout "${text}" is not a duration (e.g. 30s, 5m, 1h)`)
  return ms
}

const readCluster = (options: OptionReader, formats: ReadonlyArray<string>): ClusterOptions => {
  const kubeconfig = options.single("kubeconfig")
  const context = options.single("context")
  const namespace = options.single("namespace")
  const timeoutMs = timeoutOption(options)
  const sim = options.switch("sim")
  const exec = options.switch("exec")
  const runtimes = options.list("runtime")
  const config = options.single("config")
  // A command with formats of its own (a list's wide and name) reads -o itself; its result's format is its own.
  const chosen = formats === OutputFormats ? options.choice("output", OutputFormats, "text") : "text"
  const output: OutputFormat = chosen ?? "text"
  if (sim && kubeconfig !== undefined) options.problem("--sim and --kubeconfig cannot be used together")
  if (sim && context !== undefined) options.problem("--context names a kubeconfig's context: it cannot be used with --sim")
  if (!sim && runtimes.length > 0) options.problem("--runtime seeds the embedded simulator: it needs --sim")
  if (!sim && exec) options.problem("--exec runs the embedded simulator's pods as processes: it needs --sim")
  const target: ClusterTarget = sim
    ? { _tag: "Sim", runtimes, ...(exec ? { exec } : {}) }
    : { _tag: "Kube", ...(kubeconfig === undefined ? {} : { kubeconfig }), ...(context === undefined ? {} : { context }) }
  return { target, ...(config === undefined ? {} : { config }), ...(namespace === undefined ? {} : { namespace }), output, ...(timeoutMs === undefined ? {} : { timeoutMs }) }
}

/** Reads a cluster command's line: the cluster options plus the command's own `values`, read by `own`. */
export const parseClusterCommand = <A>(
  list: ArgList,
  flags: { readonly values: ReadonlyArray<string>; readonly switches?: ReadonlyArray<string> },
  own: (options: OptionReader) => () => A,
  argument = false,
  formats: ReadonlyArray<string> = OutputFormats
): { readonly args: ClusterOptions & A } | UsageError => {
  const options = readOptions(list, { ...clusterFlags, values: [...clusterFlags.values, ...flags.values], switches: [...clusterFlags.switches, ...(flags.switches ?? [])], argument })
  const cluster = readCluster(options, formats)
  const rest = own(options)
  return finish(options, () => ({ ...cluster, ...rest() }))
}

/** `--request R`, required. */
export const requestOption = (options: OptionReader): (() => { readonly request: string }) => {
  const request = options.required("request")
  return () => ({ request: request ?? "" })
}

/** Names one submission of one job: `--job ID --submission N`. */
export interface JobSubmission {
  readonly job: string
  readonly submission: number
}

/** The job a command addresses: its TrainJob name (`dj-<job>-s<N>`, as dispatch prints it), or
 * `--job ID --submission N`; the submission must be a whole number. */
export const jobOptions = (options: OptionReader): (() => JobSubmission) => {
  const name = options.argument()
  if (name !== undefined) {
    if (options.single("job") !== undefined || options.single("submission") !== undefined) options.problem(`give the TrainJob name "${name}" or --job and --submission, not both`)
    const key = jobKeyOfName(name)
    if (key === undefined) options.problem(`"${name}" is not the name of a TrainJob dispatch makes (dj-<job ID in lower case>-s<submission>)`)
    return () => key ?? { job: "", submission: 0 }
  }
  const job = options.required("job")
  const text = options.required("submission")
  if (text !== undefined && !/^\d{1,9}$/.test(text)) options.problem(`--submission "${text}" is not a whole number`)
  return () => ({ job: job ?? "", submission: Number(text) })
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
