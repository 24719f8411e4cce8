// What the completion scripts offer for a value: the command tree types every value a string (the CLI's
// own readers check them), so the scripts learn from the specs which values are files and which a fixed set.
import type { Completions } from "effect/cli"
import type { CommandSpec, FlagSpec } from "./CommandSpec.ts"

/** What a flag's values are, read from its placeholder: FILE and DIR name paths, `a|b|c` is that set; undefined for free text. */
export const flagType = (flag: FlagSpec): Completions.FlagType | undefined => {
  if (flag.metavar === "FILE") return { _tag: "Path", pathType: "file" }
  if (flag.metavar === "DIR") return { _tag: "Path", pathType: "directory" }
  if (flag.metavar !== undefined && /^[a-z]+(\|[a-z]+)+$/.test(flag.metavar)) return { _tag: "Choice", values: flag.metavar.split("|") }
  return undefined
}

/** The command tree's descriptor with each flag's and positional word's values typed from the specs of the command at `words`. */
export const withValueTypes = (
  descriptor: Completions.CommandDescriptor,
  specs: ReadonlyArray<CommandSpec>,
  words: ReadonlyArray<string> = []
): Completions.CommandDescriptor => {
  const spec = specs.find((s) => s.words.join(" ") === words.join(" "))
  const choices = spec?.argument?.choices
  return {
    ...descriptor,
    flags: descriptor.flags.map((f) => {
      const own = spec?.flags.find((g) => g.name === f.name)
      const type = own === undefined ? undefined : flagType(own)
      return type === undefined ? f : { ...f, type }
    }),
    arguments: choices === undefined ? descriptor.arguments : descriptor.arguments.map((a) => ({ ...a, type: { _tag: "Choice", values: choices } })),
    subcommands: descriptor.subcommands.map((c) => withValueTypes(c, specs, [...words, c.name]))
  }
}

/** The shell `--completions SHELL` (or `--completions=SHELL`) asks for anywhere on the line, if it does. */
export const completionsShell = (argv: ReadonlyArray<string>): string | undefined => {
  const at = argv.findIndex((w) => w === "--completions" || w.startsWith("--completions="))
  if (at < 0) return undefined
  const word = argv[at]!
  return word.includes("=") ? word.slice(word.indexOf("=") + 1) : argv[at + 1]
}
