// How a command prints its result: plain lines for people, or one JSON or YAML value on stdout for
// programs (`-o text|json|yaml`, kubectl's spellings). Pure but for the printing itself.
import { stringify } from "yaml"
import type { CliIo } from "./CliIo.ts"
import { type ArgList, displayFlag } from "./OptionReader.ts"

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

/** Takes `-o`/`--output` off `list`: its format (text when absent), the rest, and what is wrong with it. */
export const takeOutput = (list: ArgList): OutputTaken => {
  const values = list.flags.get("output") ?? []
  const flags = new Map(list.flags)
  flags.delete("output")
  const rest: ArgList = { ...list, flags, missingValues: list.missingValues.filter((f) => f !== "output") }
  const given = values[0]
  const found = OutputFormats.find((f) => f === given)
  const problems = [
    ...(list.missingValues.includes("output") ? [`${displayFlag("output")} needs a value`] : []),
    ...(values.length > 1 ? [`${displayFlag("output")} is given more than once`] : []),
    ...(given !== undefined && found === undefined ? [`${displayFlag("output")} "${given}" is not one of ${OutputFormats.join(", ")}`] : [])
  ]
  return { output: found ?? "text", rest, problems }
}

/** Where a command's lines (and progress) for people go: stdout, or stderr when stdout carries its JSON
 * or YAML result. */
export const forPeople = (io: CliIo, format: OutputFormat): CliIo => (format === "text" ? io : { ...io, out: io.err, progress: io.status })
