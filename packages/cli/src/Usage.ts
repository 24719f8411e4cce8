// The usage lines of the commands, made from their declarations: `dispatch render --request FILE
// --runtime FILE [FILE ...] [--config FILE] [-o yaml|json|text]`. Pure.
import type { CommandDeclaration } from "./Commands.ts"
import { type FlagFacts, argumentOf, flagsOf } from "./FlagFacts.ts"

/** The spelling of a flag in usage lines. */
const spelling = (f: FlagFacts): string => {
  const name = f.short === undefined ? `--${f.name}` : `-${f.short}`
  if (f.kind === "switch") return name
  return f.kind === "multi" ? `${name} ${f.metavar} [${f.metavar} ...]` : `${name} ${f.metavar}`
}

/** The options part of a command's usage line, e.g. `--request FILE [--config FILE] [-o text|json]`. */
export const optionsOf = (command: CommandDeclaration): string => {
  const flags = flagsOf(command)
  const alternatives = command.alternatives ?? []
  const parts: Array<string> = []
  let grouped = false
  for (const f of flags) {
    if (alternatives.includes(f.name)) {
      if (!grouped) parts.push(`[${flags.filter((g) => alternatives.includes(g.name)).map(spelling).join(" | ")}]`)
      grouped = true
      continue
    }
    parts.push(f.required === true ? spelling(f) : `[${spelling(f)}]`)
  }
  const argument = argumentOf(command)
  if (argument !== undefined) parts.unshift(argument.required ? `<${argument.name}>` : `[<${argument.name}>]`)
  return parts.join(" ")
}

/** The usage line of a command. */
export const usageLine = (command: CommandDeclaration): string => `usage: dispatch ${[...command.words, optionsOf(command)].filter((p) => p !== "").join(" ")}`
