// How a command prints its result: plain lines for people, or one JSON or YAML value on stdout for
// programs (`-o text|json|yaml`, kubectl's spellings). Pure but for the printing itself.
import { stringify } from "yaml"
import type { CliIo } from "./CliIo.ts"

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
