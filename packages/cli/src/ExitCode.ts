// The exit codes of `dispatch`, stable and documented in docs/cli.md: scripts branch on them.
import type { ErrorKind } from "@dispatch/render"

/** Every exit code `dispatch` uses: success, usage, one per error kind, and 1 for anything else. */
export const ExitCode = {
  ok: 0,
  /** Neither usage nor one of the six error kinds: a port in use, a job that did not succeed, a bug. */
  failure: 1,
  /** The command line, or a file it names, cannot be used: unknown option, missing file, not YAML. */
  usage: 2,
  ErrInvalid: 3,
  ErrUnsupported: 4,
  ErrRejected: 5,
  ErrUnreachable: 6,
  ErrReadOnly: 7,
  ErrOutcomeUnknown: 8
} as const satisfies Record<"ok" | "failure" | "usage" | ErrorKind, number>

/** The exit code of an error kind. */
export const exitCodeOf = (kind: ErrorKind): number => ExitCode[kind]
