// The command dispatcher: finds the command named by the leading words of the command line and runs
// it with the rest. Each command lives in its own module under commands/, loaded only when it runs.
import type { CliIo } from "./CliIo.ts"
import { type CommandHelp, CommandHelps, usageLine } from "./CommandHelp.ts"
import { ExitCode } from "./ExitCode.ts"

/** How a command runs: on the arguments after its words; resolves to the exit code. */
export type CommandRun = (argv: ReadonlyArray<string>, io: CliIo) => Promise<number>

/** A command: its help and how to run it. */
export interface Command extends CommandHelp {
  readonly run: CommandRun
}

const lazy = (help: CommandHelp, load: () => Promise<CommandRun>): Command => ({ ...help, run: async (argv, io) => (await load())(argv, io) })

/** Every command of the CLI. */
export const commands: ReadonlyArray<Command> = [
  // `demo service` before `demo`: the first command whose words lead the line wins.
  lazy(CommandHelps.demoService, () => import("./commands/DemoService.ts").then((m) => m.runDemoService)),
  lazy(CommandHelps.demo, () => import("./commands/Demo.ts").then((m) => m.runDemo)),
  lazy(CommandHelps.render, () => import("./commands/Render.ts").then((m) => m.runRender)),
  lazy(CommandHelps.start, () => import("./commands/Start.ts").then((m) => m.runStart)),
  lazy(CommandHelps.find, () => import("./commands/Find.ts").then((m) => m.runFind)),
  lazy(CommandHelps.open, () => import("./commands/Transition.ts").then((m) => m.runTransition("open"))),
  lazy(CommandHelps.hold, () => import("./commands/Transition.ts").then((m) => m.runTransition("hold"))),
  lazy(CommandHelps.release, () => import("./commands/Transition.ts").then((m) => m.runTransition("release"))),
  lazy(CommandHelps.stop, () => import("./commands/Stop.ts").then((m) => m.runStop)),
  lazy(CommandHelps.probe, () => import("./commands/Probe.ts").then((m) => m.runProbe)),
  lazy(CommandHelps.capabilities, () => import("./commands/Capabilities.ts").then((m) => m.runCapabilities)),
  lazy(CommandHelps.simServe, () => import("./commands/SimServe.ts").then((m) => m.runSimServe)),
  // `serve hash-token` before `serve`: the first command whose words lead the line wins.
  lazy(CommandHelps.hashToken, () => import("./commands/Serve.ts").then((m) => m.runHashToken)),
  lazy(CommandHelps.serve, () => import("./commands/Serve.ts").then((m) => m.runServe))
]

const usage = (): ReadonlyArray<string> => [
  "usage: dispatch <command> [options]",
  "",
  ...commands.flatMap((c) => [`  dispatch ${c.words.join(" ")} ${c.options}`, `      ${c.summary}`]),
  "",
  "Exit codes: 0 ok, 1 other failure, 2 usage, 3 ErrInvalid, 4 ErrUnsupported, 5 ErrRejected,",
  "6 ErrUnreachable, 7 ErrReadOnly, 8 ErrOutcomeUnknown (docs/cli.md)."
]

const isHelp = (word: string | undefined): boolean => word === "help" || word === "--help" || word === "-h"

/** Runs the CLI on a command line (without the node and script words); resolves to the exit code. */
export const runCli = async (argv: ReadonlyArray<string>, io: CliIo): Promise<number> => {
  const command = commands.find((c) => c.words.every((w, i) => argv[i] === w))
  if (command !== undefined && isHelp(argv[command.words.length])) {
    io.out(usageLine(command))
    io.out(`  ${command.summary}`)
    return ExitCode.ok
  }
  if (command === undefined) {
    const asked = isHelp(argv[0]) || argv.length === 0
    if (!asked) io.err(`dispatch: unknown command "${argv.join(" ")}"`)
    for (const line of usage()) (asked ? io.out : io.err)(line)
    return asked ? ExitCode.ok : ExitCode.usage
  }
  return command.run(argv.slice(command.words.length), io)
}
