// What the completion scripts offer for a value: the command tree that reads the line takes every value
// as a string (each command's declared flags check them), so the scripts learn from the declarations
// which values are files and which a fixed set.
import type { Completions } from "effect/cli"
import type { CommandDeclaration } from "./Commands.ts"
import { type FlagFacts, argumentOf, flagsOf } from "./FlagFacts.ts"

/** What a flag's values are: its declared set, or read from its placeholder (FILE and DIR name paths,
 * `a|b|c` is that set); undefined for free text. */
export const flagType = (flag: FlagFacts): Completions.FlagType | undefined => {
  if (flag.choices !== undefined) return { _tag: "Choice", values: flag.choices }
  if (flag.metavar === "FILE") return { _tag: "Path", pathType: "file" }
  if (flag.metavar === "DIR") return { _tag: "Path", pathType: "directory" }
  if (flag.metavar !== undefined && /^[a-z]+(\|[a-z]+)+$/.test(flag.metavar)) return { _tag: "Choice", values: flag.metavar.split("|") }
  return undefined
}

/** The command tree's descriptor with each flag's and positional word's values typed from the declaration of the command at `words`. */
export const withValueTypes = (
  descriptor: Completions.CommandDescriptor,
  specs: ReadonlyArray<CommandDeclaration>,
  words: ReadonlyArray<string> = []
): Completions.CommandDescriptor => {
  const spec = specs.find((s) => s.words.join(" ") === words.join(" "))
  const choices = spec === undefined ? undefined : argumentOf(spec)?.choices
  const flags = spec === undefined ? [] : flagsOf(spec)
  return {
    ...descriptor,
    flags: descriptor.flags.map((f) => {
      const own = flags.find((g) => g.name === f.name)
      const type = own === undefined ? undefined : flagType(own)
      return type === undefined ? f : { ...f, type }
    }),
    arguments: choices === undefined ? descriptor.arguments : descriptor.arguments.map((a) => ({ ...a, type: { _tag: "Choice", values: choices } })),
    subcommands: descriptor.subcommands.map((c) => withValueTypes(c, specs, [...words, c.name]))
  }
}

/** effect/cli's fish script, with each command that shares its name with another's subcommand (`serve`,
 * and `sim serve`) offered only where it is that command: fish's `__fish_seen_subcommand_from serve`
 * also holds on `dispatch sim serve`, which would otherwise be offered both commands' flags. */
export const fishScript = (script: string, commands: ReadonlyArray<CommandDeclaration>): string => {
  const tops = new Set(commands.map((c) => c.words[0]!))
  let fixed = script
  for (const top of tops) {
    const parents = [...new Set(commands.filter((c) => c.words.slice(1).includes(top)).map((c) => c.words[0]!))]
    if (parents.length === 0) continue
    const unless = parents.map((p) => `; and not __fish_seen_subcommand_from ${p}`).join("")
    fixed = fixed.replaceAll(`-n '__fish_seen_subcommand_from ${top};`, `-n '__fish_seen_subcommand_from ${top}${unless};`)
    fixed = fixed.replaceAll(`-n '__fish_seen_subcommand_from ${top}'`, `-n '__fish_seen_subcommand_from ${top}${unless}'`)
  }
  return fixed
}

/** The shell `--completions SHELL` (or `--completions=SHELL`) asks for anywhere on the line, if it does. */
export const completionsShell = (argv: ReadonlyArray<string>): string | undefined => {
  const at = argv.findIndex((w) => w === "--completions" || w.startsWith("--completions="))
  if (at < 0) return undefined
  const word = argv[at]!
  return word.includes("=") ? word.slice(word.indexOf("=") + 1) : argv[at + 1]
}
