// `dispatch start`: Start on the chosen cluster; the TrainJob is left with its start gate closed.
import { Result } from "effect"
import { openBackend, start, type StartResult } from "@dispatch/effects"
import { type ClusterCommandSpec, clusterImpl, printResult } from "../ClusterCommand.ts"
import { clusterFlagsOf, commandLine, parseClusterCommand, requestOption } from "../ClusterArgs.ts"
import { Commands } from "../Commands.ts"
import { loadRequest } from "../Inputs.ts"
import { runProgram } from "../RunProgram.ts"

/** The plain lines of a successful Start: what it created or found, and the gate as Start read it;
 * `flags` are the command line's cluster flags, so that the hint can be pasted as it is. */
export const startedLines = (result: StartResult, flags: ReadonlyArray<string>): ReadonlyArray<string> => {
  const what = result.created ? `started ${result.ref} (uid ${result.uid})` : `found ${result.ref} (uid ${result.uid}), which an earlier start of this request created`
  return result.gateClosed
    ? [`${what}; its start gate is closed`, `open it with: ${commandLine(["dispatch", "open", result.name, ...flags])}`]
    : [`${what}; it has already been opened`]
}

/** `dispatch start`. */
export const startCommand: ClusterCommandSpec<{ readonly request: string }> = {
  help: Commands.start,
  writes: true,
  parse: (list) => parseClusterCommand(Commands.start, list, requestOption),
  body: async ({ args, config, session, io }) => {
    const request = await loadRequest(io, args.request)
    if (Result.isFailure(request)) return request.failure
    const started = await runProgram(start(openBackend(config), request.success), session)
    if (Result.isFailure(started)) return started.failure
    printResult(io, args, started.success, startedLines(started.success, clusterFlagsOf(args)))
    return undefined
  }
}

/** `dispatch start` as the CLI runs it. */
export const startImpl = clusterImpl(startCommand)
