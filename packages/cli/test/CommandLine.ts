// A command line read the way `dispatch` reads it (effect/cli, with kubectl's spellings), for tests of
// what each command's reader makes of it.
import { readLine } from "../src/Cli.ts"
import type { CliIo } from "../src/CliIo.ts"
import type { ArgList } from "../src/FlagReader.ts"

/** A CliIo that records what is printed and touches nothing. */
export const recordingIo = (env: Readonly<Record<string, string | undefined>> = {}, terminal = false) => {
  const out: Array<string> = []
  const err: Array<string> = []
  const status: Array<string> = []
  const io: CliIo = {
    out: (line) => void out.push(line),
    err: (line) => void err.push(line),
    progress: (line) => void out.push(line),
    status: (line) => void (line === undefined ? undefined : status.push(line)),
    readFile: async () => ({ error: "no files in this test" }),
    writeFile: async () => ({ error: "no files in this test" }),
    terminal,
    errTerminal: terminal,
    env,
    cwd: "/",
    stopRequested: new Promise<void>(() => {})
  }
  return { io, out, err, status }
}

/** The values `argv` gives its command, and the problems effect/cli stopped at (unknown options, stray words). */
export const lineOf = async (argv: ReadonlyArray<string>): Promise<{ readonly list: ArgList; readonly problems: ReadonlyArray<string> }> => {
  const read = await readLine(argv, recordingIo().io)
  if (read._tag !== "Read") throw new Error(`${argv.join(" ")} was not read as a command: ${JSON.stringify(read)}`)
  return { list: read.list, problems: read.problems }
}

/** A command's parse of `argv` (after its words), with effect/cli's problems first, as the CLI reports them. */
export const parsedBy = async <A>(
  words: ReadonlyArray<string>,
  argv: ReadonlyArray<string>,
  parse: (list: ArgList) => { readonly args: A } | { readonly _tag: "UsageError"; readonly problems: ReadonlyArray<string> }
): Promise<{ readonly args: A } | { readonly _tag: "UsageError"; readonly problems: ReadonlyArray<string> }> => {
  const { list, problems } = await lineOf([...words, ...argv])
  const parsed = parse(list)
  if (problems.length === 0) return parsed
  return { _tag: "UsageError", problems: [...problems, ...("problems" in parsed ? parsed.problems.filter((p) => !problems.includes(p)) : [])] }
}
