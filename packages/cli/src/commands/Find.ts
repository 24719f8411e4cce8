// `dispatch find`: the one state of a job's submission (Absent, InFlight, Held, Queued, Running,
// Succeeded, Failed, Stopping), read from the cluster.
import { Result } from "effect"
import { type FoundJob, find, openBackend } from "@dispatch/effects"
import { type ClusterCommandSpec, clusterImpl, printResult } from "../ClusterCommand.ts"
import { type JobSubmission, jobOptions, parseClusterCommand } from "../ClusterArgs.ts"
import { Commands } from "../Commands.ts"
import { runProgram } from "../RunProgram.ts"

/** What a state adds to its name, if anything. */
export const stateDetail = (status: FoundJob): string => {
  switch (status.state) {
    case "Held":
    case "Queued":
      return status.reason
    case "Succeeded":
      return status.reason
    case "Failed":
      return `${status.reason}${status.message === "" ? "" : `: ${status.message}`}`
    case "InFlight":
      return `a create went unanswered; it may still appear until ${new Date(status.untilMs).toISOString()}`
    case "Absent":
    case "Running":
    case "Stopping":
      return ""
  }
}

/** The plain line of a job's state. */
export const statusLine = (status: FoundJob): string => {
  const detail = stateDetail(status)
  return `${status.ref.namespace}/${status.ref.name}: ${status.state}${detail === "" ? "" : ` (${detail})`}`
}

/** `dispatch find`. */
export const findCommand: ClusterCommandSpec<JobSubmission> = {
  help: Commands.find,
  writes: false,
  parse: (list) => parseClusterCommand(Commands.find, list, jobOptions),
  body: async ({ args, config, session, io }) => {
    const status = await runProgram(find(openBackend(config), { job: args.job, submission: args.submission }), session)
    if (Result.isFailure(status)) return status.failure
    printResult(io, args, status.success, [statusLine(status.success)])
    return undefined
  }
}

/** `dispatch find` as the CLI runs it. */
export const findImpl = clusterImpl(findCommand)
