// `dispatch logs`: the logs of a job's pods, read through the kubeconfig's API server as kubectl logs
// reads them: every node's pod with each line prefixed [node-N], or one node's as it is.
import { type TrainJobPod, readPodLog, trainJobPods } from "@dispatch/effects"
import { trainJobName } from "@dispatch/render"
import { type ClusterCommandSpec, clusterImpl } from "../ClusterCommand.ts"
import { type JobSubmission, jobOptions, parseClusterCommand } from "../ClusterArgs.ts"
import { CommandSpecs } from "../CommandSpec.ts"
import { failed, usage } from "../Failure.ts"

/** The options of `dispatch logs` beyond the job. */
interface LogsArgs extends JobSubmission {
  readonly follow: boolean
  readonly node?: number
  readonly tail?: number
  readonly previous: boolean
}

const wholeNumber = (options: Parameters<typeof jobOptions>[0], name: string): number | undefined => {
  const text = options.single(name)
  if (text === undefined) return undefined
  if (!/^\d{1,9}$/.test(text)) options.problem(`--${name} "${text}" is not a whole number`)
  return Number(text)
}

const why = (error: unknown): string => {
  const record = typeof error === "object" && error !== null ? (error as Record<string, unknown>) : {}
  const code = record["code"]
  const body = record["body"]
  const message = typeof body === "object" && body !== null ? (body as Record<string, unknown>)["message"] : undefined
  return [typeof code === "number" ? String(code) : undefined, typeof message === "string" ? message : error instanceof Error ? error.message : String(error)].filter((p) => p !== undefined).join(": ")
}

/** `dispatch logs`. */
export const logsCommand: ClusterCommandSpec<LogsArgs> = {
  help: CommandSpecs.logs,
  writes: false,
  ownsWaits: true,
  parse: (list) =>
    parseClusterCommand(list, { values: ["job", "submission", "node", "tail"], switches: ["follow", "previous"] }, (options) => {
      const job = jobOptions(options)
      const follow = options.switch("follow")
      const previous = options.switch("previous")
      const node = wholeNumber(options, "node")
      const tail = wholeNumber(options, "tail")
      if (options.single("output") !== undefined && options.single("output") !== "text") options.problem(`-o ${options.single("output")}: logs are printed as text only`)
      return () => ({ ...job(), follow, previous, ...(node === undefined ? {} : { node }), ...(tail === undefined ? {} : { tail }) })
    }, true),
  body: async ({ args, config, session, io }) => {
    const kube = session.kubeConfig
    // An embedded simulator lives only as long as this command, so no job of it has run: read a served one.
    if (kube === undefined) return usage(["logs reads a running cluster: give --kubeconfig (dispatch sim serve writes one), not --sim"])
    const name = trainJobName(args.job, args.submission)
    const stop = new AbortController()
    void io.stopRequested.then(() => stop.abort())
    const deadline = args.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + args.timeoutMs
    let pods: ReadonlyArray<TrainJobPod> = []
    let chosen: ReadonlyArray<TrainJobPod> = []
    // With -f, pods not made yet (a job just opened) are waited for, as the user means to watch them run.
    for (let waited = false; ; waited = true) {
      try {
        pods = await trainJobPods(kube, config.namespace, name)
      } catch (error) {
        return failed([`cannot list the pods of ${config.namespace}/${name}: ${why(error)}`])
      }
      chosen = args.node === undefined ? pods : pods.filter((p) => p.node === args.node)
      if (chosen.length > 0 || !args.follow || stop.signal.aborted || Date.now() >= deadline) break
      if (!waited) io.err(`dispatch logs: waiting for the pods of ${config.namespace}/${name}`)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    if (chosen.length === 0) {
      return failed([args.node === undefined ? `${config.namespace}/${name} has no pods (not started, not yet opened, or gone)` : `${config.namespace}/${name} has no pod for node ${args.node} (nodes: ${pods.map((p) => p.node).join(", ") || "none"})`])
    }
    const options = { follow: args.follow, previous: args.previous, ...(args.tail === undefined ? {} : { tailLines: args.tail }) }
    const prefixed = args.node === undefined
    const problems: Array<string> = []
    await Promise.all(
      chosen.map((pod) =>
        readPodLog(kube, config.namespace, pod, options, (line) => io.out(prefixed ? `[node-${pod.node}] ${line}` : line), stop.signal).catch((error: unknown) => {
          problems.push(`cannot read the log of pod ${pod.name}: ${why(error)}`)
        })
      )
    )
    return problems.length === 0 ? undefined : failed(problems)
  }
}

/** `dispatch logs` as the CLI runs it. */
export const logsImpl = clusterImpl(logsCommand)
