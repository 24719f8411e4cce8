// `dispatch capabilities`: whether the backend can run a request's spec (Start's runtime checks, steps
// 2-3), creating nothing.
import { Result } from "effect"
import { type Capabilities, capabilities, openBackend } from "@dispatch/effects"
import { runtimeLabel } from "@dispatch/render"
import { type ClusterCommandSpec, clusterImpl, printResult } from "../ClusterCommand.ts"
import { parseClusterCommand, requestOption } from "../ClusterArgs.ts"
import { loadRequest } from "../Inputs.ts"
import { Commands } from "../Commands.ts"
import { runProgram } from "../RunProgram.ts"

const yesNo = (value: boolean): string => (value ? "yes" : "no")

/** The plain lines of a Capabilities answer. */
export const capabilitiesLines = (answer: Capabilities): ReadonlyArray<string> => [
  `supported: runs on ${runtimeLabel(answer.runtime)}`,
  `native requeue: ${yesNo(answer.nativeRequeue)}; native restart: ${yesNo(answer.nativeRestart)}`
]

/** `dispatch capabilities`. */
export const capabilitiesCommand: ClusterCommandSpec<{ readonly request: string }> = {
  help: Commands.capabilities,
  writes: false,
  parse: (list) => parseClusterCommand(Commands.capabilities, list, requestOption),
  body: async ({ args, config, session, io }) => {
    const request = await loadRequest(io, args.request)
    if (Result.isFailure(request)) return request.failure
    const answer = await runProgram(capabilities(openBackend(config), request.success.spec), session)
    if (Result.isFailure(answer)) return answer.failure
    printResult(io, args, answer.success, capabilitiesLines(answer.success))
    return undefined
  }
}

/** `dispatch capabilities` as the CLI runs it. */
export const capabilitiesImpl = clusterImpl(capabilitiesCommand)
