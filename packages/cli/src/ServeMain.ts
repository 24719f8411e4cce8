// `dispatch serve` as the process's main program: an Effect that NodeRuntime.runMain runs, whose SIGINT and SIGTERM
// interrupt it. Interrupted, it asks the service to stop (a service still starting stops listening at once and lets
// the database step under way finish) and waits until the service has closed: the process then exits with the
// command's own code, 0 for a stop asked for.
import { Effect } from "effect"
import { allCommands } from "./Commands.ts"
import { runCli } from "./Cli.ts"
import type { CliIo } from "./CliIo.ts"
import { ExitCode } from "./ExitCode.ts"
import { normalizeArgv } from "./KubectlArgv.ts"

/** Whether a command line runs the job service, which serves until it is asked to stop. */
export const servesUntilStopped = (argv: ReadonlyArray<string>): boolean => {
  const words = normalizeArgv(allCommands, argv)
  return words[0] === "serve" && words[1] !== "hash-token"
}

/** The command line run as an Effect whose interruption is the stop it waits for: its result is the exit code,
 * `ended` is told it (interrupted, the Effect ends without one). `io` is made with the stop it is given. */
export const stoppableCommand = (argv: ReadonlyArray<string>, ioWith: (stopRequested: Promise<void>) => CliIo, ended: (code: number) => void): Effect.Effect<number> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.suspend(() => {
      let askStop = () => {}
      const stopRequested = new Promise<void>((resolve) => (askStop = resolve))
      const running = runCli(argv, ioWith(stopRequested)).then((code) => {
        ended(code)
        return code
      })
      const finished = Effect.promise(() => running)
      return restore(finished).pipe(Effect.onInterrupt(() => Effect.sync(askStop).pipe(Effect.andThen(finished))))
    })
  )

/** Runs `dispatch serve` under NodeRuntime.runMain; the process exits with the command's code. */
export const runServeMain = async (argv: ReadonlyArray<string>, ioWith: (stopRequested: Promise<void>) => CliIo): Promise<void> => {
  // Loaded here: the other commands, which end by themselves, do without it.
  const NodeRuntime = await import("@effect/platform-node/NodeRuntime")
  let code: number | undefined
  NodeRuntime.runMain(
    stoppableCommand(argv, ioWith, (ended) => (code = ended)),
    // The command names its own problems, and ends with its code whether it ended by itself or was stopped; an
    // end without a code (a defect) is a failure.
    { disableErrorReporting: true, teardown: (_, onExit) => onExit(code ?? ExitCode.failure) }
  )
}
