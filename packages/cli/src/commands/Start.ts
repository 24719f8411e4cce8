// `dispatch start`: Start on the chosen cluster; the TrainJob is left with its start gate closed.
import { Result } from "effect"
import { openBackend, start, type StartResult } from "@dispatch/effects"
import { type ClusterCommandSpec, printResult, runClusterCommand } from "../ClusterCommand.ts"
import { parseClusterCommand, requestOption } from "../ClusterArgs.ts"
import { CommandHelps } from "../CommandHelp.ts"
import { loadRequest } from "../Inputs.ts"
import { runProgram } from "../RunProgram.ts"

/** The plain lines of a successful Start: what it created or found, and the gate as Start read it. */
export const startedLines = (result: StartResult, job: string, submission: number): ReadonlyArray<string> => {
  const what = result.created ? `started ${result.ref} (uid ${result.uid})` : `found ${result.ref} (uid ${result.uid}), which an earlier start of this request created`
  return result.gateClosed
    ? [`${what}; its start gate is closed`, `open it with: dispatch open --job ${job} --submission ${submission}`]
    : [`${what}; it has already been opened`]
}

/** `dispatch start`. */
export const startCommand: ClusterCommandSpec<{ readonly request: string }> = {
  help: CommandHelps.start,
  parse: (argv) => parseClusterCommand(argv, ["request"], requestOption),
  body: async ({ args, config, session, io }) => {
    const request = await loadRequest(io, args.request)
    if (Result.isFailure(request)) return request.failure
    const started = await runProgram(start(openBackend(config), request.success), session)
    if (Result.isFailure(started)) return started.failure
    printResult(io, args, started.success, startedLines(started.success, request.success.job, request.success.submission))
    return undefined
  }
}

/** Runs `dispatch start` with the arguments after `start`. */
export const runStart = runClusterCommand(startCommand)
