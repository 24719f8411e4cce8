// How results and failures are shown: plain words on stderr for people, one JSON value on stdout for
// programs. Pure: commands print what these return.
import type { ErrorKind } from "@dispatch/render"
import type { Failure } from "./Failure.ts"

/** The groups of commands whose errors read differently: what may have been done differs. */
type CommandGroup = "start" | "transition" | "stop" | "other"

const groupOf = (command: string): CommandGroup => {
  if (command === "start" || command === "demo") return "start"
  if (command === "open" || command === "hold" || command === "release") return "transition"
  return command === "stop" ? "stop" : "other"
}

// Each kind's meaning for every command, and where a group needs other words.
const meanings: Readonly<Record<ErrorKind, { readonly all: string } & Partial<Record<CommandGroup, string>>>> = {
  ErrInvalid: { all: "the input is invalid (each reason names the file or field); fix it, retrying as is will not help" },
  ErrUnsupported: {
    all: "this backend cannot do this (the reasons name the gate, runtime or permission)",
    start: "this backend cannot run it"
  },
  ErrRejected: {
    all: "the cluster refused it",
    start: "the cluster refused it, or changed what was written (anything Start created has been stopped)",
    transition: "the cluster refused the change, or the job is not in a state that allows it; nothing was changed",
    stop: "the cluster refused the delete, or the object is not dispatch's"
  },
  ErrUnreachable: {
    all: "the cluster could not be reached or failed transiently; retry later",
    start: "the cluster could not be reached or failed transiently; nothing was started, retry later"
  },
  ErrReadOnly: { all: "this identity may read but not write the cluster" },
  ErrOutcomeUnknown: { all: "a write may or may not have happened; run `dispatch find` before retrying" }
}

/** What an error kind means for a command, in the words a person reading a terminal needs. */
export const errorMeaning = (command: string, kind: ErrorKind): string => meanings[kind][groupOf(command)] ?? meanings[kind].all

/** The lines a failure prints on stderr, each starting with the command, e.g. `dispatch start: ...`. */
export const failureLines = (command: string, failure: Failure): ReadonlyArray<string> => {
  const head = command === "" ? "dispatch" : `dispatch ${command}`
  switch (failure._tag) {
    case "Usage":
      return [...failure.problems.map((p) => `${head}: ${p}`), ...(failure.usage === undefined ? [] : [failure.usage])]
    case "Failed":
      return failure.problems.map((p) => `${head}: ${p}`)
    case "Refused": {
      const about = failure.ref === undefined ? "" : ` (${failure.ref.namespace}/${failure.ref.name}${failure.ref.uid === undefined ? "" : `, uid ${failure.ref.uid}`})`
      const server = failure.server === undefined ? "" : ` (server ${failure.server})`
      return [`${head}: ${failure.error}: ${errorMeaning(command, failure.error)}${about}${server}`, ...failure.reasons.map((r) => `  - ${r}`)]
    }
  }
}

/** What a refusal prints on stdout with `-o json` or `-o yaml`: `{error, reasons, ref?}`; other failures,
 * and refusals whose command printed its own result, print none. */
export const failureValue = (failure: Failure): { readonly error: ErrorKind; readonly reasons: ReadonlyArray<string> } | undefined =>
  failure._tag === "Refused" && failure.reported !== true
    ? { error: failure.error, reasons: failure.reasons, ...(failure.ref === undefined ? {} : { ref: failure.ref }), ...(failure.server === undefined ? {} : { server: failure.server }) }
    : undefined

/** The JSON of `failureValue`, if any. */
export const failureJson = (failure: Failure): string | undefined => {
  const value = failureValue(failure)
  return value === undefined ? undefined : JSON.stringify(value, null, 2)
}
