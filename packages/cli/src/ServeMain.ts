// `dispatch serve` as the process's main program: one Effect that NodeRuntime.runMain runs, whose SIGINT and SIGTERM
// interrupt it. The command line is read first (help, usage problems and the rest as for any command); the serve
// command is then `serveMain`, which holds its cluster and the service in one scope: interrupted, the scope closes
// them in reverse order (a service still starting stops listening at once and lets the database step under way
// finish), and the process exits with the command's own code, 0 for a stop asked for.
import { Effect } from "effect"
import { allCommands, Commands } from "./Commands.ts"
import { readCommand } from "./Cli.ts"
import type { CliIo } from "./CliIo.ts"
import { normalizeArgv } from "./KubectlArgv.ts"

/** Whether a command line runs the job service, which serves until it is asked to stop. */
export const servesUntilStopped = (argv: ReadonlyArray<string>): boolean => {
  const words = normalizeArgv(allCommands, argv)
  return words[0] === "serve" && words[1] !== "hash-token"
}

// Loaded when the line is read: the other commands, which end by themselves, do without the service.
const serveModule = Effect.promise(() => import("./commands/Serve.ts"))

/** The command line as one Effect: its exit code when it ends by itself; interrupted, the stop `dispatch serve` serves
 * until (its code then `serveExitCode`'s). `io`'s own stop is not used: the interruption is the stop. */
export const mainProgram = (argv: ReadonlyArray<string>, io: CliIo): Effect.Effect<number> =>
  Effect.flatMap(
    // The line reader (effect/cli, run at the command runner's Promise edge) ends before anything is opened.
    Effect.promise(() => readCommand(argv, io)),
    (read) =>
      typeof read === "number"
        ? Effect.succeed(read)
        : read.command?.spec === Commands.serve
          ? Effect.flatMap(serveModule, (serve) => serve.serveMain(read.list, io))
          : Effect.promise(() => read.impl.run(read.list, io))
  )

/** Runs `dispatch serve` under NodeRuntime.runMain; the process exits with the command's code. */
export const runServeMain = async (argv: ReadonlyArray<string>, io: CliIo): Promise<void> => {
  // Loaded here: the other commands, which end by themselves, do without them.
  const NodeRuntime = await import("@effect/platform-node/NodeRuntime")
  const { serveExitCode } = await import("./commands/Serve.ts")
  NodeRuntime.runMain(mainProgram(argv, io), {
    // The command names its own problems, and ends with its code whether it ended by itself or was stopped; a defect
    // is a failure.
    disableErrorReporting: true,
    teardown: (exit, onExit) => onExit(serveExitCode(exit))
  })
}
