// Reading a command's options from the values effect/cli parsed off its command line, collecting every
// problem instead of stopping at the first, so that one run of a wrong command line names everything
// wrong with it.

/** A command line as effect/cli read it: every value of every flag given (in order), and the words left. */
export interface ArgList {
  /** A switch given is recorded with the value "". */
  readonly flags: ReadonlyMap<string, ReadonlyArray<string>>
  readonly positional: ReadonlyArray<string>
  /** Flags given without a value. */
  readonly missingValues: ReadonlyArray<string>
}

/** A command line that could not be read, with every problem found. */
export interface UsageError {
  readonly _tag: "UsageError"
  readonly problems: ReadonlyArray<string>
}

/** The flags a command accepts, by how they take values. */
export interface OptionSpec {
  readonly values?: ReadonlyArray<string>
  readonly multi?: ReadonlyArray<string>
  readonly switches?: ReadonlyArray<string>
  /** Whether the command takes one positional word (a TrainJob name). */
  readonly argument?: boolean
}

/** Typed access to a parsed command line; each accessor adds its problems to `problems`. */
export interface OptionReader {
  readonly problems: ReadonlyArray<string>
  /** The flag's value, if given once (given twice is a problem). */
  readonly single: (flag: string) => string | undefined
  /** The flag's value; absent is a problem. */
  readonly required: (flag: string) => string | undefined
  /** Every value the flag was given. */
  readonly list: (flag: string) => ReadonlyArray<string>
  /** Whether a switch was given. */
  readonly switch: (flag: string) => boolean
  /** The flag's value among `choices`, `fallback` when absent, undefined (and a problem) otherwise. */
  readonly choice: <A extends string>(flag: string, choices: ReadonlyArray<A>, fallback: A) => A | undefined
  /** The positional word, if the command takes one and it was given. */
  readonly argument: () => string | undefined
  /** Records a problem found by the command itself. */
  readonly problem: (text: string) => void
}

/** How a flag is named in a problem: the short spelling too where there is one. */
export const displayFlag = (flag: string): string =>
  flag === "output" ? "-o/--output" : flag === "namespace" ? "-n/--namespace" : flag === "selector" ? "-l/--selector" : `--${flag}`

/** Reads `list` against `spec`; unknown flags, stray words and flags without values are problems at once. */
export const readOptions = (list: ArgList, spec: OptionSpec): OptionReader => {
  const values = spec.values ?? []
  const multi = spec.multi ?? []
  const switches = spec.switches ?? []
  const known = new Set([...values, ...multi, ...switches])
  const problems: Array<string> = []
  const display = displayFlag
  for (const flag of list.missingValues) if (known.has(flag)) problems.push(`${display(flag)} needs a value`)
  for (const word of list.positional.slice(spec.argument === true ? 1 : 0)) problems.push(`unexpected argument "${word}"`)
  for (const flag of new Set([...list.flags.keys(), ...list.missingValues])) if (!known.has(flag)) problems.push(`unknown option ${flag.length === 1 ? `-${flag}` : `--${flag}`}`)

  const single = (flag: string): string | undefined => {
    const given = list.flags.get(flag) ?? []
    if (given.length > 1) problems.push(`${display(flag)} is given more than once`)
    const value = given[0]
    if (value === "") problems.push(`${display(flag)} must not be empty`)
    return value === "" ? undefined : value
  }
  return {
    problems,
    single,
    required: (flag) => {
      const value = single(flag)
      if (value === undefined && !list.missingValues.includes(flag) && !list.flags.has(flag)) problems.push(`${display(flag)} is required`)
      return value
    },
    list: (flag) => {
      const given = list.flags.get(flag) ?? []
      if (given.some((v) => v === "")) problems.push(`${display(flag)} must name a file`)
      return given.filter((v) => v !== "")
    },
    switch: (flag) => {
      const given = list.flags.get(flag) ?? []
      if (given.some((v) => v !== "")) problems.push(`${display(flag)} takes no value`)
      return given.length > 0
    },
    choice: (flag, choices, fallback) => {
      const value = single(flag) ?? (list.flags.has(flag) ? "" : fallback)
      const found = choices.find((c) => c === value)
      if (found === undefined && value !== "") problems.push(`${display(flag)} "${value}" is not one of ${choices.join(", ")}`)
      return found
    },
    argument: () => (spec.argument === true ? list.positional[0] : undefined),
    problem: (text) => void problems.push(text)
  }
}

/** What a command's module provides: the problems of its line, and how it runs (resolving to the exit code). */
export interface CommandImpl {
  readonly check: (list: ArgList) => ReadonlyArray<string>
  readonly run: (list: ArgList, io: import("./CliIo.ts").CliIo) => Promise<number>
}

/** The problems of a parsed line: none when it parsed. */
export const problemsOf = (parsed: { readonly args: unknown } | UsageError): ReadonlyArray<string> => ("problems" in parsed ? parsed.problems : [])

/** The reader's problems as a UsageError, or the value when there are none. */
export const finish = <A>(reader: OptionReader, value: () => A): { readonly args: A } | UsageError =>
  reader.problems.length > 0 ? { _tag: "UsageError", problems: reader.problems } : { args: value() }
