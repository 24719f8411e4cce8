// `dispatch stop`: deletes the job's TrainJob (its copy and Workload follow) and says what remains;
// already gone is success.
import { Result } from "effect"
import { type StopResult, openBackend, stop } from "@dispatch/effects"
import { type ClusterCommandSpec, clusterImpl, printResult } from "../ClusterCommand.ts"
import { type JobSubmission, jobOptions, parseClusterCommand } from "../ClusterArgs.ts"
import { failed } from "../Failure.ts"
import { Commands } from "../Commands.ts"
import { runProgram } from "../RunProgram.ts"

/** The plain lines of a Stop. */
export const stopLines = (result: StopResult): ReadonlyArray<string> =>
  result.gone
    ? [`stopped ${result.ref.namespace}/${result.ref.name}: nothing of it remains`]
    : [`stopping ${result.ref.namespace}/${result.ref.name}; still present:`, ...result.remaining.map((r) => `  ${r}`)]

/** `dispatch stop`. */
export const stopCommand: ClusterCommandSpec<JobSubmission & { readonly waitSeconds: number }> = {
  help: Commands.stop,
  writes: true,
  parse: (list) =>
    parseClusterCommand(Commands.stop, list, (options) => {
      const job = jobOptions(options)
      const waitSeconds = options.value("wait")
      return () => ({ ...job(), waitSeconds })
    }),
  body: async ({ args, config, session, io }) => {
    const key = { job: args.job, submission: args.submission }
    const result = await runProgram(stop(openBackend(config), key, { waitMs: args.waitSeconds * 1000 }), session)
    if (Result.isFailure(result)) return result.failure
    printResult(io, args, result.success, stopLines(result.success))
    // Asked to wait and something is still there: the stop has not finished.
    return args.waitSeconds > 0 && !result.success.gone ? failed([`still present after ${args.waitSeconds} s: ${result.success.remaining.join(", ")}`]) : undefined
  }
}

/** `dispatch stop` as the CLI runs it. */
export const stopImpl = clusterImpl(stopCommand)
