// What a command may touch of the outside world, passed in so that commands run the same in tests.

/** The outside world as a command sees it. */
export interface CliIo {
  /** Writes one line to standard output. */
  readonly out: (line: string) => void
  /** Writes one line to standard error. */
  readonly err: (line: string) => void
  /** Shows a line that the next progress or output line replaces (a terminal rewrites it in place). */
  readonly progress: (line: string) => void
  /** Shows a status line on stderr, redrawn in place on a terminal; undefined clears it. */
  readonly status: (line: string | undefined) => void
  /** Reads a file as UTF-8 text (`-`: standard input), or says why it could not. */
  readonly readFile: (path: string) => Promise<{ readonly text: string } | { readonly error: string }>
  /** Writes a file as UTF-8 text, whole or not at all, or says why it could not. */
  readonly writeFile: (path: string, text: string) => Promise<{ readonly error?: string }>
  /** Whether standard output is a terminal (progress is drawn in place, colour may be used). */
  readonly terminal: boolean
  /** Whether standard error is a terminal (progress of a wait is drawn there). */
  readonly errTerminal: boolean
  /** The environment: KUBECONFIG, NO_COLOR. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** The working directory, against which file names are shown. */
  readonly cwd: string
  /** Settles when the process is asked to stop (SIGINT or SIGTERM). */
  readonly stopRequested: Promise<void>
}

export { ExitCode } from "./ExitCode.ts"
