// docs/cli.md's reference of every command's flags, made from the commands' declarations: each
// command's usage line, then each flag with its value, default and description. The test of the CLI's
// declarations checks that the document holds exactly this text; `node packages/cli/scripts/flag-reference.mjs`
// (after `npx tsc -b`) writes it there.
import type { CommandDeclaration } from "./Commands.ts"
import { type FlagFacts, argumentOf, flagFacts } from "./FlagFacts.ts"
import { declaredDefault } from "./FlagReader.ts"
import { usageLine } from "./Usage.ts"

/** The line that opens the generated reference in docs/cli.md. */
export const referenceStart = "<!-- flag-reference: made from the commands' declarations; do not edit by hand -->"

/** The line that closes it. */
export const referenceEnd = "<!-- /flag-reference -->"

/** A markdown table cell: its pipes escaped, so that a placeholder `text|json` stays in its cell. */
export const cell = (text: string): string => text.replaceAll("|", "\\|")

const spelling = (f: FlagFacts): string => {
  const names = f.short === undefined ? `--${f.name}` : `-${f.short}, --${f.name}`
  if (f.kind === "switch") return names
  return f.kind === "multi" ? `${names} ${f.metavar} ...` : `${names} ${f.metavar}`
}

/** One command's part of the reference. */
const commandReference = (command: CommandDeclaration): ReadonlyArray<string> => {
  const argument = argumentOf(command)
  const rows = Object.values(command.flags).map((flag) => {
    const f = flagFacts(flag)
    const fallback = declaredDefault(flag)
    return `| ${cell(`\`${spelling(f)}\``)} | ${f.required === true ? "required" : fallback === undefined ? "" : cell(`\`${fallback}\``)} | ${cell(f.description)} |`
  })
  return [
    `### \`dispatch ${command.words.join(" ")}\``,
    "",
    command.summary.charAt(0).toUpperCase() + command.summary.slice(1) + ".",
    "",
    `\`${usageLine(command).replace(/^usage: /, "")}\``,
    "",
    ...(argument === undefined ? [] : [`\`<${argument.name}>\`: ${argument.description}${argument.required ? "" : " (optional)"}.`, ""]),
    ...(rows.length === 0 ? ["No flags."] : ["| Flag | Default | What it sets |", "| --- | --- | --- |", ...rows]),
    ""
  ]
}

/** The whole reference, from its opening line to its closing one. */
export const flagReference = (commands: ReadonlyArray<CommandDeclaration>): string =>
  [referenceStart, "", ...commands.flatMap(commandReference), referenceEnd].join("\n")

/** `document` with what lies from `start` to `end` (both lines included) replaced by `block`; undefined when it has no such part. */
export const withBlock = (document: string, start: string, end: string, block: string): string | undefined => {
  const from = document.indexOf(start)
  const to = document.indexOf(end)
  if (from < 0 || to < from) return undefined
  return document.slice(0, from) + block + document.slice(to + end.length)
}

/** `document` with its reference replaced by `reference`; undefined when it has no reference to replace. */
export const withReference = (document: string, reference: string): string | undefined => withBlock(document, referenceStart, referenceEnd, reference)
