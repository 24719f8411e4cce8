// `dispatch open`, `hold` and `release`: open the start gate, pause, resume. Plain mode sets
// spec.suspend; Kueue mode removes dispatch's admission gate or sets dispatch's admission check.
import { Result } from "effect"
import { type Transition, openBackend, transition } from "@dispatch/effects"
import { type ClusterCommandSpec, clusterImpl, printResult } from "../ClusterCommand.ts"
import { type JobSubmission, jobOptions, parseClusterCommand } from "../ClusterArgs.ts"
import { Commands } from "../Commands.ts"
import { runProgram } from "../RunProgram.ts"

const done: Readonly<Record<Transition, string>> = { open: "opened", hold: "held", release: "released" }

/** `dispatch open`, `dispatch hold` or `dispatch release`. */
export const transitionCommand = (which: Transition): ClusterCommandSpec<JobSubmission> => ({
  help: Commands[which],
  writes: true,
  parse: (list) => parseClusterCommand(Commands[which], list, jobOptions),
  body: async ({ args, config, session, io }) => {
    const ref = await runProgram(transition(openBackend(config), { job: args.job, submission: args.submission }, which), session)
    if (Result.isFailure(ref)) return ref.failure
    printResult(io, args, ref.success, [`${done[which]} ${ref.success.namespace}/${ref.success.name}`])
    return undefined
  }
})

/** `dispatch open`, `hold` or `release` as the CLI runs it. */
export const transitionImpl = (which: Transition) => clusterImpl(transitionCommand(which))
