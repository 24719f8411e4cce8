// `dispatch logs`: the logs of a job's pods, read through the Cluster as kubectl logs reads them: every
// node's pod with each line prefixed [node-N], or one node's as it is.
import { Effect, Result } from "effect"
import { Cluster, type ClusterError, type TrainJobPod, readFailure, trainJobPods } from "@dispatch/effects"
import { trainJobName } from "@dispatch/render"
import { type ClusterCommandSpec, clusterImpl } from "../ClusterCommand.ts"
import { type JobSubmission, jobOptions, parseClusterCommand } from "../ClusterArgs.ts"
import { Commands } from "../Commands.ts"
import { failed, usage } from "../Failure.ts"
import { runProgram } from "../RunProgram.ts"

/** The options of `dispatch logs` beyond the job. */
interface LogsArgs extends JobSubmission {
  readonly follow: boolean
  readonly node?: number
  readonly tail?: number
  readonly previous: boolean
  /** `--since D`, in whole seconds (rounded up, as kubectl sends it). */
  readonly sinceSeconds?: number
  readonly container?: string
}

/** How often pods not made yet are looked for again with -f. */
const podPollMs = 250

/** The pods chosen (every node's, or --node's), waiting for them with -f until `deadlineMs`. */
const choosePods = (namespace: string, name: string, args: LogsArgs, deadlineMs: number, waiting: () => void) =>
  Effect.gen(function* () {
    for (let waited = false; ; waited = true) {
      const pods = yield* Effect.mapError(trainJobPods(namespace, name), readFailure)
      const chosen = args.node === undefined ? pods : pods.filter((p) => p.node === args.node)
      if (chosen.length > 0 || !args.follow || Date.now() >= deadlineMs) return { pods, chosen }
      if (!waited) waiting()
      yield* Effect.sleep(podPollMs)
    }
  })

/** Reads each chosen pod's log; every pod that could not be read is a reason. */
const readLogs = (namespace: string, pods: ReadonlyArray<TrainJobPod>, args: LogsArgs, print: (pod: TrainJobPod, line: string) => void) =>
  Effect.gen(function* () {
    const cluster = yield* Cluster
    const options = {
      follow: args.follow,
      previous: args.previous,
      ...(args.tail === undefined ? {} : { tailLines: args.tail }),
      ...(args.sinceSeconds === undefined ? {} : { sinceSeconds: args.sinceSeconds })
    }
    const read = (pod: TrainJobPod) =>
      cluster.podLog({ namespace, name: pod.name }, { ...options, container: args.container ?? pod.containers[0] ?? "" }, (line) => print(pod, line)).pipe(
        Effect.as<ReadonlyArray<string>>([]),
        Effect.catch((error: ClusterError) => Effect.succeed(error.reasons.map((r) => `cannot read the log of pod ${pod.name}: ${r}`)))
      )
    return (yield* Effect.forEach(pods, read, { concurrency: "unbounded" })).flat()
  })

/** `dispatch logs`. */
export const logsCommand: ClusterCommandSpec<LogsArgs> = {
  help: Commands.logs,
  writes: false,
  ownsWaits: true,
  parse: (list) =>
    parseClusterCommand(Commands.logs, list, (options) => {
      const job = jobOptions(options)
      const follow = options.value("follow")
      const previous = options.value("previous")
      const node = options.value("node")
      const tail = options.value("tail")
      const since = options.value("since")
      // `--since D` goes to the API server in whole seconds, rounded up, as kubectl sends it.
      const sinceSeconds = since === undefined ? undefined : Math.ceil(since / 1000)
      const container = options.value("container")
      const output = options.value("output")
      if (output !== "text") options.problem(`-o ${output}: logs are printed as text only`)
      return () => ({
        ...job(),
        follow,
        previous,
        ...(node === undefined ? {} : { node }),
        ...(tail === undefined ? {} : { tail }),
        ...(sinceSeconds === undefined ? {} : { sinceSeconds }),
        ...(container === undefined ? {} : { container })
      })
    }),
  body: async ({ args, config, session, io }) => {
    // An embedded simulator lives only as long as this command, so no job of it has run: read a served one.
    if (session.simulator !== undefined) return usage(["logs reads a running cluster: give --kubeconfig (dispatch sim serve writes one), not --sim"])
    const name = trainJobName(args.job, args.submission)
    const deadlineMs = args.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + args.timeoutMs
    const found = await runProgram(
      Effect.raceFirst(
        choosePods(config.namespace, name, args, deadlineMs, () => io.err(`dispatch logs: waiting for the pods of ${config.namespace}/${name}`)),
        Effect.as(Effect.promise(() => io.stopRequested), { pods: [], chosen: [] })
      ),
      session
    )
    if (Result.isFailure(found)) return found.failure
    const { pods, chosen } = found.success
    if (chosen.length === 0) {
      return failed([args.node === undefined ? `${config.namespace}/${name} has no pods (not started, not yet opened, or gone)` : `${config.namespace}/${name} has no pod for node ${args.node} (nodes: ${pods.map((p) => p.node).join(", ") || "none"})`])
    }
    const prefixed = args.node === undefined
    const read = await runProgram(
      Effect.raceFirst(
        readLogs(config.namespace, chosen, args, (pod, line) => io.out(prefixed ? `[node-${pod.node}] ${line}` : line)),
        Effect.as(Effect.promise(() => io.stopRequested), [])
      ),
      session
    )
    if (Result.isFailure(read)) return read.failure
    return read.success.length === 0 ? undefined : failed(read.success)
  }
}

/** `dispatch logs` as the CLI runs it. */
export const logsImpl = clusterImpl(logsCommand)
