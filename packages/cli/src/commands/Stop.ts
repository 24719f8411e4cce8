// `dispatch stop`: deletes the job's TrainJob (its copy and Workload follow) and says what remains;
// already gone is success.
import { Result } from "effect"
import { type StopResult, openBackend, stop } from "@dispatch/effects"
import { type ClusterCommandSpec, printResult, runClusterCommand } from "../ClusterCommand.ts"
import { type JobSubmission, jobOptions, parseClusterCommand } from "../ClusterArgs.ts"
import { failed } from "../Failure.ts"
import { CommandHelps } from "../CommandHelp.ts"
import { runProgram } from "../RunProgram.ts"

/** The plain lines of a Stop. */
export const stopLines = (result: StopResult): ReadonlyArray<string> =>
  result.gone
    ? [`stopped ${result.ref.namespace}/${result.ref.name}: nothing of it remains`]
    : [`stopping ${result.ref.namespace}/${result.ref.name}; still present:`, ...result.remaining.map((r) => `  ${r}`)]

/** `dispatch stop`. */
export const stopCommand: ClusterCommandSpec<JobSubmission & { readonly waitSeconds: number }> = {
  help: CommandHelps.stop,
  parse: (argv) =>
    parseClusterCommand(argv, ["job", "submission", "wait"], (options) => {
      const job = jobOptions(options)
      const wait = options.single("wait")
      if (wait !== undefined && !/^\d{1,5}$/.test(wait)) options.problem(`--wait "${wait}" is not a whole number of seconds`)
      return () => ({ ...job(), waitSeconds: wait === undefined ? 0 : Number(wait) })
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

/** Runs `dispatch stop` with the arguments after `stop`. */
export const runStop = runClusterCommand(stopCommand)
