// What every cluster command does around its own step: read its command line, load the backend config,
// open the cluster session, and end by printing a failure the same way.
import { Result } from "effect"
import type { BackendConfig } from "@dispatch/render"
import { BundledExamples } from "./BundledExamples.ts"
import type { CliIo } from "./CliIo.ts"
import type { ClusterOptions } from "./ClusterArgs.ts"
import { type CommandHelp, usageLine } from "./CommandHelp.ts"
import { type ClusterSession, openSession } from "./ClusterSession.ts"
import { endCommand } from "./CommandEnd.ts"
import { type Failure, usage } from "./Failure.ts"
import { loadConfig } from "./Inputs.ts"
import type { UsageError } from "./OptionReader.ts"

/** What a cluster command's body gets: its arguments, the decoded config and the open session. */
export interface ClusterContext<A> {
  readonly args: ClusterOptions & A
  readonly config: BackendConfig
  readonly session: ClusterSession
  readonly io: CliIo
}

/** A cluster command: its help, how to read its line, and its body. */
export interface ClusterCommandSpec<A> {
  readonly help: CommandHelp
  readonly parse: (argv: ReadonlyArray<string>) => { readonly args: ClusterOptions & A } | UsageError
  readonly body: (context: ClusterContext<A>) => Promise<Failure | undefined>
}

/** Runs a cluster command on the arguments after its name; resolves to the exit code. */
export const runClusterCommand = <A>(spec: ClusterCommandSpec<A>) => async (argv: ReadonlyArray<string>, io: CliIo): Promise<number> => {
  const name = spec.help.words.join(" ")
  const parsed = spec.parse(argv)
  if ("problems" in parsed) return endCommand(io, name, false, usage(parsed.problems, usageLine(spec.help)))
  const args = parsed.args
  const config = await loadConfig(io, args.config ?? BundledExamples.config)
  if (Result.isFailure(config)) return endCommand(io, name, args.output === "json", config.failure)
  // On a real cluster the bundled example's namespace is rarely the one meant: say which config acts.
  if (args.config === undefined && args.target._tag === "Kube") {
    io.err(`dispatch ${name}: no --config: using the bundled example ${BundledExamples.config} (namespace ${config.success.namespace}, ${config.success.mode} mode)`)
  }
  const session = await openSession(io, args.target, config.success)
  if (Result.isFailure(session)) return endCommand(io, name, args.output === "json", session.failure)
  const failure = await spec.body({ args, config: config.success, session: session.success, io })
  return endCommand(io, name, args.output === "json", failure)
}

/** Prints a result: its JSON with `-o json`, else its plain lines. */
export const printResult = (io: CliIo, args: ClusterOptions, json: unknown, lines: ReadonlyArray<string>): void => {
  if (args.output === "json") io.out(JSON.stringify(json, null, 2))
  else for (const line of lines) io.out(line)
}
