// What a command may touch of the outside world, passed in so that commands run the same in tests.

/** The outside world as a command sees it. */
export interface CliIo {
  /** Writes one line to standard output. */
  readonly out: (line: string) => void
  /** Writes one line to standard error. */
  readonly err: (line: string) => void
  /** Shows a line that the next progress or output line replaces (a terminal rewrites it in place). */
  readonly progress: (line: string) => void
  /** Reads a file as UTF-8 text, or says why it could not. */
  readonly readFile: (path: string) => Promise<{ readonly text: string } | { readonly error: string }>
  /** Writes a file as UTF-8 text, whole or not at all, or says why it could not. */
  readonly writeFile: (path: string, text: string) => Promise<{ readonly error?: string }>
  /** The working directory, against which file names are shown. */
  readonly cwd: string
  /** Settles when the process is asked to stop (SIGINT or SIGTERM). */
  readonly stopRequested: Promise<void>
}

export { ExitCode } from "./ExitCode.ts"
