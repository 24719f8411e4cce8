// The options of the commands that talk to a cluster (start, find, open, hold, release, stop, probe,
// capabilities): which cluster, which backend config, which output; plus each one's own.
import { type OptionReader, type UsageError, finish, readOptions } from "./OptionReader.ts"

/** The cluster a command talks to: a kubeconfig (or client-node's default chain), or an embedded simulator. */
export type ClusterTarget =
  | { readonly _tag: "Kube"; readonly kubeconfig?: string }
  /** Seeded from `runtimes`; none given means the bundled example runtime. */
  | { readonly _tag: "Sim"; readonly runtimes: ReadonlyArray<string> }

/** How a command prints its result: plain words, or one JSON value on stdout. */
export type TextOutput = "text" | "json"

/** The options every cluster command takes. */
export interface ClusterOptions {
  readonly target: ClusterTarget
  /** The backend config file; absent means the bundled example config. */
  readonly config?: string
  readonly output: TextOutput
}

/** The cluster options' usage text. */
export const clusterUsage = "[--kubeconfig F | --sim [--runtime RT ...]] [--config C] [-o text|json]"

const clusterFlags = { values: ["kubeconfig", "config", "output"], multi: ["runtime"], switches: ["sim"] } as const

const readCluster = (options: OptionReader): ClusterOptions => {
  const kubeconfig = options.single("kubeconfig")
  const sim = options.switch("sim")
  const runtimes = options.list("runtime")
  const config = options.single("config")
  const output = options.choice("output", ["text", "json"] as const, "text") ?? "text"
  if (sim && kubeconfig !== undefined) options.problem("--sim and --kubeconfig cannot be used together")
  if (!sim && runtimes.length > 0) options.problem("--runtime seeds the embedded simulator: it needs --sim")
  const target: ClusterTarget = sim ? { _tag: "Sim", runtimes } : { _tag: "Kube", ...(kubeconfig === undefined ? {} : { kubeconfig }) }
  return { target, ...(config === undefined ? {} : { config }), output }
}

/** Reads a cluster command's line: the cluster options plus the command's own `values`, read by `own`. */
export const parseClusterCommand = <A>(
  argv: ReadonlyArray<string>,
  values: ReadonlyArray<string>,
  own: (options: OptionReader) => () => A
): { readonly args: ClusterOptions & A } | UsageError => {
  const options = readOptions(argv, { ...clusterFlags, values: [...clusterFlags.values, ...values] })
  const cluster = readCluster(options)
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

/** `--job ID --submission N`, both required; the submission must be a whole number. */
export const jobOptions = (options: OptionReader): (() => JobSubmission) => {
  const job = options.required("job")
  const text = options.required("submission")
  if (text !== undefined && !/^\d{1,9}$/.test(text)) options.problem(`--submission "${text}" is not a whole number`)
  return () => ({ job: job ?? "", submission: Number(text) })
}

/** No options of its own. */
export const noOptions = (): (() => Record<never, never>) => () => ({})
