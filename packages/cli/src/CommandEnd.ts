// How every command ends: nothing more on success; on failure, the plain words on stderr, the JSON
// refusal on stdout when asked for JSON, and the failure's exit code.
import type { CliIo } from "./CliIo.ts"
import { ExitCode } from "./ExitCode.ts"
import { type Failure, exitCodeOfFailure } from "./Failure.ts"
import { failureJson, failureLines } from "./Report.ts"

/** Reports `failure` (if any) for `command` and returns the exit code. */
export const endCommand = (io: CliIo, command: string, json: boolean, failure: Failure | undefined): number => {
  if (failure === undefined) return ExitCode.ok
  for (const line of failureLines(command, failure)) io.err(line)
  const asJson = json ? failureJson(failure) : undefined
  if (asJson !== undefined) io.out(asJson)
  return exitCodeOfFailure(failure)
}
