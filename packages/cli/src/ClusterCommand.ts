// What every cluster command does around its own step: read its command line, load the backend config,
// open the cluster session, and end by printing a failure the same way.
import { Result } from "effect"
import type { BackendConfig } from "@dispatch/render"
import { BundledExamples } from "./BundledExamples.ts"
import type { CliIo } from "./CliIo.ts"
import type { ClusterOptions } from "./ClusterArgs.ts"
import type { CommandDeclaration } from "./Commands.ts"
import { usageLine } from "./Usage.ts"
import { type ClusterSession, openSession } from "./ClusterSession.ts"
import { endCommand } from "./CommandEnd.ts"
import { type Failure, usage } from "./Failure.ts"
import { loadConfig } from "./Inputs.ts"
import { printResult as printFormatted } from "./Output.ts"
import { type ArgList, type CommandImpl, type UsageError, problemsOf } from "./FlagReader.ts"

/** What a cluster command's body gets: its arguments, the decoded config and the open session. */
export interface ClusterContext<A> {
  readonly args: ClusterOptions & A
  readonly config: BackendConfig
  readonly session: ClusterSession
  readonly io: CliIo
}

/** A cluster command: its help, how to read its line, and its body. */
export interface ClusterCommandSpec<A> {
  readonly help: CommandDeclaration
  readonly parse: (list: ArgList) => { readonly args: ClusterOptions & A } | UsageError
  readonly body: (context: ClusterContext<A>) => Promise<Failure | undefined>
  /** Whether the command writes: a wait it gives up on may have changed the cluster. */
  readonly writes: boolean
  /** The body bounds and shows its own waits (watching, waiting for a state): no generic progress or --timeout. */
  readonly ownsWaits?: true
}

/** Runs a cluster command on the arguments after its name; resolves to the exit code. */
export const runClusterCommand = <A>(spec: ClusterCommandSpec<A>) => async (list: ArgList, io: CliIo): Promise<number> => {
  const name = spec.help.words.join(" ")
  const parsed = spec.parse(list)
  if ("problems" in parsed) return endCommand(io, name, "text", usage(parsed.problems, usageLine(spec.help)))
  const args = parsed.args
  const loaded = await loadConfig(io, args.config ?? BundledExamples.config)
  if (Result.isFailure(loaded)) return endCommand(io, name, args.output, loaded.failure)
  // -n/--namespace overrides the config's namespace, as kubectl's overrides the kubeconfig's.
  const config = args.namespace === undefined ? loaded.success : { ...loaded.success, namespace: args.namespace }
  // On a real cluster the bundled example's namespace is rarely the one meant: say which config acts.
  if (args.config === undefined && args.target._tag === "Kube") {
    io.err(`dispatch ${name}: no --config: using the bundled example ${BundledExamples.config} (namespace ${config.namespace}, ${config.mode} mode)`)
  }
  const opened = await openSession(io, args.target, config)
  if (Result.isFailure(opened)) return endCommand(io, name, args.output, opened.failure)
  const watch = { io, command: name, timeoutKind: spec.writes ? "ErrOutcomeUnknown" : "ErrUnreachable", ...(args.timeoutMs === undefined ? {} : { timeoutMs: args.timeoutMs }) } as const
  const failure = await spec.body({ args, config, session: spec.ownsWaits === true ? opened.success : { ...opened.success, watch }, io })
  await opened.success.close()
  return endCommand(io, name, args.output, failure)
}

/** A cluster command as the CLI runs it. */
export const clusterImpl = <A>(spec: ClusterCommandSpec<A>): CommandImpl => ({ check: (list) => problemsOf(spec.parse(list)), run: runClusterCommand(spec) })

/** Prints a result in the format the command line asked for. */
export const printResult = (io: CliIo, args: ClusterOptions, value: unknown, lines: ReadonlyArray<string>): void => printFormatted(io, args.output, value, lines)
