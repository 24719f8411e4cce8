// How a command prints its result: plain lines for people, or one JSON or YAML value on stdout for
// programs (`-o text|json|yaml`, kubectl's spellings). Pure but for the printing itself.
import { stringify } from "yaml"
import type { CliIo } from "./CliIo.ts"
import type { Flag } from "effect/cli"
import type { CommandDeclaration } from "./Commands.ts"
import { type ArgList, readValues } from "./FlagReader.ts"

/** The formats every command's result can be printed in. */
export const OutputFormats = ["text", "json", "yaml"] as const

/** How a command prints its result. */
export type OutputFormat = (typeof OutputFormats)[number]

/** A value as one JSON or YAML document. */
export const formatValue = (format: "json" | "yaml", value: unknown): string =>
  format === "json" ? JSON.stringify(value, null, 2) : stringify(value).trimEnd()

/** Prints a result: its value with `-o json` or `-o yaml`, else its plain lines. */
export const printResult = (io: CliIo, format: OutputFormat, value: unknown, lines: ReadonlyArray<string>): void => {
  if (format === "text") for (const line of lines) io.out(line)
  else io.out(formatValue(format, value))
}

/** A command line with `-o` taken off: for the commands whose own readers do not know it (the demo and
 * the servers), which print their one result at the end (or once listening). */
export interface OutputTaken {
  readonly output: OutputFormat
  readonly rest: ArgList
  readonly problems: ReadonlyArray<string>
}

/** Takes `-o`/`--output` off `list`, read with `command`'s declared flag: its format (its default when
 * absent or wrong), the rest, and what is wrong with it. */
export const takeOutput = (command: CommandDeclaration<{ readonly output: Flag.Flag<OutputFormat> }>, list: ArgList): OutputTaken => {
  const flags = new Map(list.flags)
  flags.delete("output")
  const alone = readValues({ words: command.words, summary: command.summary, flags: { output: command.flags.output } }, { flags: new Map([["output", list.flags.get("output") ?? []]]), positional: [] })
  const output = alone.value("output")
  return { output, rest: { ...list, flags }, problems: alone.problems }
}

/** Where a command's lines (and progress) for people go: stdout, or stderr when stdout carries its JSON
 * or YAML result. */
export const forPeople = (io: CliIo, format: OutputFormat): CliIo => (format === "text" ? io : { ...io, out: io.err, progress: io.status })
