// The CliIo of a real process: files on disk, standard streams, and SIGINT/SIGTERM as the stop signal.
import { readFile, rename, writeFile } from "node:fs/promises"
import type { CliIo } from "./CliIo.ts"

// Node's messages for file errors are plain ("ENOENT: no such file or directory, open 'x'"); anything
// else is shown by its message alone, never its stack.
const message = (error: unknown): string => (error instanceof Error ? error.message : String(error))

// Standard input is read once: a second `-` in one command line gets the same text.
let stdin: Promise<string> | undefined
const readStdin = (): Promise<string> => {
  stdin ??= new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    process.stdin.on("data", (chunk: Buffer) => chunks.push(chunk))
    process.stdin.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    process.stdin.once("error", reject)
  })
  return stdin
}

// A reader that stops early (`dispatch render | head`) is not an error: stop writing, quietly.
const onStdoutError = (error: NodeJS.ErrnoException): void => {
  if (error.code !== "EPIPE") process.stderr.write(`dispatch: cannot write to standard output: ${error.message}\n`)
  process.exit(error.code === "EPIPE" ? 0 : 1)
}

/** The running process as a CliIo; its stop is `stopRequested` when given (a caller that handles the signals), else SIGINT or SIGTERM. */
export const processIo = (stopRequested?: Promise<void>): CliIo => {
  // Once per process, however many CliIos a program (or a test) makes: one more listener per call
  // would pile up on the one stdout.
  if (!process.stdout.listeners("error").includes(onStdoutError)) process.stdout.on("error", onStdoutError)
  const terminal = process.stdout.isTTY === true
  let shown = ""
  let stop = stopRequested
  // A progress line on a terminal is rewritten in place and cleared before the next output line; in a
  // pipe or a log each new progress text is a line of its own.
  const errTerminal = process.stderr.isTTY === true
  let status = false
  const clear = () => {
    if (terminal && shown !== "") process.stdout.write("\r\x1b[K")
    shown = ""
    if (status) process.stderr.write("\r\x1b[K")
    status = false
  }
  return {
    out: (line) => {
      clear()
      process.stdout.write(`${line}\n`)
    },
    err: (line) => {
      clear()
      process.stderr.write(`${line}\n`)
    },
    progress: (line) => {
      if (line === shown) return
      if (terminal) process.stdout.write(`\r\x1b[K${line}`)
      else process.stdout.write(`${line}\n`)
      shown = line
    },
    status: (line) => {
      if (errTerminal) {
        process.stderr.write(`\r\x1b[K${line ?? ""}`)
        status = line !== undefined
      } else if (line !== undefined) process.stderr.write(`${line}\n`)
    },
    readFile: (path) => (path === "-" ? readStdin() : readFile(path, "utf8")).then((text) => ({ text }), (error: unknown) => ({ error: message(error) })),
    // Written beside and renamed, so a reader waiting for the file never sees half of it.
    writeFile: (path, text) =>
      writeFile(`${path}.partial`, text, "utf8")
        .then(() => rename(`${path}.partial`, path))
        .then(() => ({}), (error: unknown) => ({ error: message(error) })),
    terminal,
    errTerminal,
    env: process.env,
    cwd: process.cwd(),
    // Listening for SIGINT turns off Node's default exit on Ctrl-C, so only a command that asks (a
    // server) listens; every other command still stops at once.
    get stopRequested() {
      stop ??= new Promise<void>((resolve) => {
        process.once("SIGINT", () => resolve())
        process.once("SIGTERM", () => resolve())
      })
      return stop
    }
  }
}
