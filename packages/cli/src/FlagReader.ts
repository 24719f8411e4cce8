// Reading a command's values off its line with its declared flags (Commands.ts): each flag's own
// effect/cli parser gives its typed value, or its default when absent. effect/cli's command parser stops
// at the first bad value; here each flag is parsed on its own and every problem is collected, so that one
// run of a wrong command line names everything wrong with it, in the order the command reads its flags.
import { Cause, Effect, Exit, Option } from "effect"
import type { CliError, Flag } from "effect/cli"
import type { CommandDeclaration, Flags } from "./Commands.ts"
import { displayFlag, flagFacts, flagsOf } from "./FlagFacts.ts"

/** A command line as effect/cli read it: every value of every flag given (in order), and the words left. */
export interface ArgList {
  /** A switch given is recorded with the value "". */
  readonly flags: ReadonlyMap<string, ReadonlyArray<string>>
  readonly positional: ReadonlyArray<string>
}

/** A command line that could not be read, with every problem found. */
export interface UsageError {
  readonly _tag: "UsageError"
  readonly problems: ReadonlyArray<string>
}

/** A flag's value as a command uses it: an optional value is the value or undefined. */
export type ValueOf<F> = F extends Flag.Flag<infer A> ? (A extends Option.Option<infer B> ? B | undefined : A) : never

/** Typed access to a parsed command line; each accessor adds its problems to `problems`. */
export interface ValueReader<F extends Flags> {
  readonly problems: ReadonlyArray<string>
  /** The flag's value as declared: parsed, checked, or its default when absent. A wrong value (or a
   * required one missing) is a problem, and what is returned then is never used: `finish` refuses the line. */
  readonly value: <K extends keyof F & string>(name: K) => ValueOf<F[K]>
  /** Whether the line gives the flag at all. */
  readonly given: (name: keyof F & string) => boolean
  /** The positional word, if the command takes one and it was given. */
  readonly argument: () => string | undefined
  /** Records a problem found by the command itself. */
  readonly problem: (text: string) => void
}

// The declared flags' parsers need effect/cli's environment only for files and prompts, which no
// declared flag reads: each runs synchronously with nothing provided.
const parseAlone = <A>(flag: Flag.Flag<A>, values: ReadonlyArray<string>): Exit.Exit<A, CliError.CliError> =>
  Effect.runSyncExit(flag.parse({ flags: values.length === 0 ? {} : { [flagFacts(flag).name]: values }, arguments: [] }).pipe(Effect.map(([, value]) => value)) as Effect.Effect<A, CliError.CliError>)

const unwrap = (value: unknown): unknown => (Option.isOption(value) ? Option.getOrUndefined(value) : value)

/** What a flag's declaration gives when the line leaves it out, as the line would spell it; undefined
 * when that is nothing (a flag that must be given, an optional value, an unset switch, no values). */
export const declaredDefault = (flag: Flag.Flag<unknown>): string | undefined => {
  const absent = parseAlone(flag, [])
  const value = Exit.isSuccess(absent) ? unwrap(absent.value) : undefined
  if (value === undefined || value === false || (Array.isArray(value) && value.length === 0)) return undefined
  return String(value)
}

/** The words of a problem effect/cli's parser found with one flag's values. */
const problemOf = (flag: Flag.Flag<unknown>, error: CliError.CliError): string => {
  const facts = flagFacts(flag)
  const display = displayFlag(facts)
  switch (error._tag) {
    case "MissingOption":
      return `${display} is required`
    case "InvalidValue":
      return facts.choices !== undefined && !facts.choices.includes(error.value)
        ? `${display} "${error.value}" is not one of ${facts.choices.join(", ")}`
        : `${display} "${error.value}" is not ${error.expected}`
    default:
      return `${display}: ${error.message}`
  }
}

/** Reads `list` against `command`'s declared flags; unknown flags and stray words are problems at once. */
export const readValues = <F extends Flags>(command: CommandDeclaration<F>, list: ArgList): ValueReader<F> => {
  const known = new Set(flagsOf(command).map((f) => f.name))
  const problems: Array<string> = []
  for (const word of list.positional.slice(command.argument === undefined ? 0 : 1)) problems.push(`unexpected argument "${word}"`)
  for (const flag of list.flags.keys()) if (!known.has(flag)) problems.push(`unknown option ${flag.length === 1 ? `-${flag}` : `--${flag}`}`)

  // Each flag is read once: a command that asks again gets the same value, and no problem twice.
  const read = new Map<string, unknown>()
  const value = <K extends keyof F & string>(name: K): ValueOf<F[K]> => {
    if (read.has(name)) return read.get(name) as ValueOf<F[K]>
    const found = readOne(name)
    read.set(name, found)
    return found
  }
  const readOne = <K extends keyof F & string>(name: K): ValueOf<F[K]> => {
    const flag = command.flags[name] as Flag.Flag<unknown>
    const facts = flagFacts(flag)
    const display = displayFlag(facts)
    const raw = list.flags.get(name) ?? []
    let values: ReadonlyArray<string> = raw
    if (facts.kind === "switch") {
      if (raw.some((v) => v !== "")) problems.push(`${display} takes no value`)
      values = raw.length > 0 ? ["true"] : []
    }
    else if (facts.kind === "multi") {
      if (raw.some((v) => v === "")) problems.push(`${display} must name a file`)
      values = raw.filter((v) => v !== "")
    } else {
      if (raw.length > 1) problems.push(`${display} is given more than once`)
      if (raw[0] === "") {
        problems.push(`${display} must not be empty`)
        return undefined as ValueOf<F[K]>
      }
      values = raw.slice(0, 1)
    }
    const parsed = parseAlone(flag, values)
    if (Exit.isSuccess(parsed)) return unwrap(parsed.value) as ValueOf<F[K]>
    const error = Cause.squash(parsed.cause) as CliError.CliError
    problems.push(problemOf(flag, error))
    // What the line would have meant without the flag: its default, if it has one.
    const fallback = parseAlone(flag, [])
    return (Exit.isSuccess(fallback) ? unwrap(fallback.value) : undefined) as ValueOf<F[K]>
  }
  return {
    problems,
    value,
    given: (name) => (list.flags.get(name) ?? []).length > 0,
    argument: () => (command.argument === undefined ? undefined : list.positional[0]),
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
export const finish = <F extends Flags, A>(reader: ValueReader<F>, value: () => A): { readonly args: A } | UsageError =>
  reader.problems.length > 0 ? { _tag: "UsageError", problems: reader.problems } : { args: value() }
