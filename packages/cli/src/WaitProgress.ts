// A command that waits on the cluster says so: from the first second, a progress line on stderr,
// redrawn in place each second on a terminal, one line every ten seconds elsewhere (a log is not a
// screen). Time is Effect's Clock, so tests move it with TestClock.
import { Effect, Fiber } from "effect"
import type { CliIo } from "./CliIo.ts"

/** How often a progress line is printed where it cannot be redrawn. */
const PIPE_EVERY_SECONDS = 10

/** The progress line after `seconds` of waiting. */
export const waitingLine = (command: string, seconds: number): string => `dispatch ${command}: waiting for the cluster (${seconds} s)`

/** Runs `effect`, showing on stderr that `command` is waiting while it takes more than a second. */
export const showingProgress =
  (io: CliIo, command: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.gen(function* () {
      const ticker = yield* Effect.forkChild(
        Effect.gen(function* () {
          for (let seconds = 1; ; seconds++) {
            yield* Effect.sleep(1000)
            if (io.errTerminal) io.status(waitingLine(command, seconds))
            else if (seconds === 1 || seconds % PIPE_EVERY_SECONDS === 0) io.err(waitingLine(command, seconds))
          }
        })
      )
      return yield* effect.pipe(Effect.ensuring(Effect.andThen(Fiber.interrupt(ticker), Effect.sync(() => io.status(undefined)))))
    })
