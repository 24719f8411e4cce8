// How results and failures are shown: plain words on stderr for people, one JSON value on stdout for
// programs. Pure: commands print what these return.
import type { ErrorKind } from "@dispatch/render"
import type { Failure } from "./Failure.ts"

/** What each error kind means, in the words a person reading a terminal needs. */
export const errorMeaning: Readonly<Record<ErrorKind, string>> = {
  ErrInvalid: "the request is invalid; fix it, retrying as is will not help",
  ErrUnsupported: "this backend cannot run it",
  ErrRejected: "the cluster refused it, or changed what was written (anything Start created has been stopped)",
  ErrUnreachable: "the cluster could not be reached or failed transiently; nothing was started, retry later",
  ErrReadOnly: "this identity may read but not write the cluster",
  ErrOutcomeUnknown: "a write may or may not have happened; run `dispatch find` before retrying"
}

/** The lines a failure prints on stderr, each starting with the command, e.g. `dispatch start: ...`. */
export const failureLines = (command: string, failure: Failure): ReadonlyArray<string> => {
  const head = `dispatch ${command}`
  switch (failure._tag) {
    case "Usage":
      return [...failure.problems.map((p) => `${head}: ${p}`), ...(failure.usage === undefined ? [] : [failure.usage])]
    case "Failed":
      return failure.problems.map((p) => `${head}: ${p}`)
    case "Refused": {
      const about = failure.ref === undefined ? "" : ` (${failure.ref.namespace}/${failure.ref.name}${failure.ref.uid === undefined ? "" : `, uid ${failure.ref.uid}`})`
      return [`${head}: ${failure.error}: ${errorMeaning[failure.error]}${about}`, ...failure.reasons.map((r) => `  - ${r}`)]
    }
  }
}

/** The JSON a refusal prints on stdout with `-o json`: `{error, reasons, ref?}`; other failures, and refusals
 * whose command printed its own JSON result, print none. */
export const failureJson = (failure: Failure): string | undefined =>
  failure._tag === "Refused" && failure.reported !== true
    ? JSON.stringify({ error: failure.error, reasons: failure.reasons, ...(failure.ref === undefined ? {} : { ref: failure.ref }) }, null, 2)
    : undefined
