// Why a command did not succeed, as data: what it prints and which exit code it ends with follow from
// this alone (Report.ts, ExitCode.ts).
import type { ErrorKind } from "@dispatch/render"
import { ExitCode, exitCodeOf } from "./ExitCode.ts"

/** The object an error is about, as the lifecycle's errors carry it. */
export interface FailureRef {
  readonly namespace: string
  readonly name: string
  readonly uid?: string
}

/** Why a command did not succeed. */
export type Failure =
  /** The command line or a file it names cannot be used. */
  | { readonly _tag: "Usage"; readonly problems: ReadonlyArray<string>; readonly usage?: string }
  /** One of the six error kinds, with every reason. */
  | {
      readonly _tag: "Refused"
      readonly error: ErrorKind
      readonly reasons: ReadonlyArray<string>
      readonly ref?: FailureRef
      /** The command already printed its JSON result, which says this (the probe's report). */
      readonly reported?: true
      /** The API server the command talked to (named when it could not be reached). */
      readonly server?: string
    }
  /** Anything else that stopped the command. */
  | { readonly _tag: "Failed"; readonly problems: ReadonlyArray<string> }

/** A usage failure. */
export const usage = (problems: ReadonlyArray<string>, text?: string): Failure => ({ _tag: "Usage", problems, ...(text === undefined ? {} : { usage: text }) })

/** A failure of one of the six kinds. */
export const refused = (error: ErrorKind, reasons: ReadonlyArray<string>, ref?: FailureRef): Failure => ({
  _tag: "Refused",
  error,
  reasons,
  ...(ref === undefined ? {} : { ref })
})

/** Any other failure. */
export const failed = (problems: ReadonlyArray<string>): Failure => ({ _tag: "Failed", problems })

/** The exit code a failure ends the command with. */
export const exitCodeOfFailure = (failure: Failure): number => {
  switch (failure._tag) {
    case "Usage":
      return ExitCode.usage
    case "Refused":
      return exitCodeOf(failure.error)
    case "Failed":
      return ExitCode.failure
  }
}
