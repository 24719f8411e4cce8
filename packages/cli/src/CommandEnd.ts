// How every command ends: nothing more on success; on failure, the plain words on stderr (the error's
// kind in red on a terminal), the refusal on stdout when asked for JSON or YAML, and the failure's exit code.
import type { CliIo } from "./CliIo.ts"
import { colourOn, red } from "./Colour.ts"
import { ExitCode } from "./ExitCode.ts"
import { type Failure, exitCodeOfFailure } from "./Failure.ts"
import { type OutputFormat, formatValue } from "./Output.ts"
import { failureLines, failureValue } from "./Report.ts"

/** Reports `failure` (if any) for `command` and returns the exit code. */
export const endCommand = (io: CliIo, command: string, format: OutputFormat, failure: Failure | undefined): number => {
  if (failure === undefined) return ExitCode.ok
  const colour = colourOn(io, "err")
  failureLines(command, failure).forEach((line, i) => io.err(i === 0 && failure._tag === "Refused" ? line.replace(failure.error, red(colour, failure.error)) : line))
  const value = format === "text" ? undefined : failureValue(failure)
  if (value !== undefined && format !== "text") io.out(formatValue(format, value))
  return exitCodeOfFailure(failure)
}
