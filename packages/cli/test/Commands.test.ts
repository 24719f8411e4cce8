// Each command's flags are declared once (Commands.ts): its --help, its completions in bash, zsh and fish,
// its usage line and docs/cli.md's flag reference all come from that declaration, and show exactly the
// flags it declares, no more.
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { runCli } from "../src/Cli.ts"
import { type CommandDeclaration, allCommands } from "../src/Commands.ts"
import { ExitCode } from "../src/ExitCode.ts"
import { flagsOf } from "../src/FlagFacts.ts"
import { flagReference, referenceEnd, referenceStart } from "../src/FlagReference.ts"
import { usageLine } from "../src/Usage.ts"
import { recordingIo } from "./CommandLine.ts"
import { shellBoundMs, shellCompleter, shells } from "./ShellCompletion.ts"

const complete = shellCompleter()

const named = (command: CommandDeclaration): string => command.words.join(" ")
const declared = (command: CommandDeclaration): ReadonlyArray<string> => flagsOf(command).map((f) => `--${f.name}`).sort()

const helpOf = async (command: CommandDeclaration): Promise<string> => {
  const t = recordingIo()
  expect(await runCli([...command.words, "--help"], t.io)).toBe(ExitCode.ok)
  return t.out.join("\n")
}

/** The rows of help's FLAGS section: each flag's long name, its one-letter spelling, placeholder and description. */
const helpFlags = (help: string) => {
  const lines = help.split("\n")
  const from = lines.indexOf("FLAGS")
  const section = from < 0 ? [] : lines.slice(from + 1, lines.findIndex((l, i) => i > from && l.trim() === ""))
  return section.map((line) => {
    const row = /^ {2}--([a-z-]+)(?:, -([a-zA-Z]))?(?: (\S+))? {2,}(.*)$/.exec(line)
    if (row === null) throw new Error(`not a flag's row of help: ${line}`)
    return { name: row[1]!, short: row[2], metavar: row[3], description: row[4]! }
  })
}

const document = readFileSync(new URL("../../../docs/cli.md", import.meta.url), "utf8")
const reference = document.slice(document.indexOf(referenceStart), document.indexOf(referenceEnd) + referenceEnd.length)

/** The flags docs/cli.md's reference lists for a command: the first cell of each row of its table. */
const documentedFlags = (command: CommandDeclaration): ReadonlyArray<string> => {
  const heading = `### \`dispatch ${named(command)}\``
  const from = reference.indexOf(`${heading}\n`)
  const to = reference.indexOf("\n### ", from + heading.length)
  const part = reference.slice(from, to < 0 ? undefined : to)
  return [...part.matchAll(/^\| `(?:-[a-zA-Z], )?(--[a-z-]+)[^`]*` \|/gm)].map((m) => m[1]!).sort()
}

describe("docs/cli.md's flag reference", () => {
  it("is exactly what the commands' declarations make", () => {
    expect(document).toContain(referenceStart)
    expect(reference).toBe(flagReference(allCommands))
  })

  it("names no flag, anywhere in the document, that no command declares (nor effect/cli's own)", () => {
    const known = new Set([...allCommands.flatMap(declared), "--help", "--version", "--completions"])
    const mentioned = new Set([...document.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map((m) => m[0]))
    expect([...mentioned].filter((flag) => !known.has(flag))).toEqual([])
  })
})

describe.each(allCommands.map((command) => [named(command), command] as const))("dispatch %s", { timeout: shellBoundMs * 4 }, (_, command) => {
  it("--help lists exactly its declared flags, each with its one-letter spelling, placeholder and description", async () => {
    const rows = helpFlags(await helpOf(command))
    expect(rows.map((r) => `--${r.name}`).sort()).toEqual(declared(command))
    for (const flag of flagsOf(command)) {
      expect(rows.find((r) => r.name === flag.name)).toEqual({ name: flag.name, short: flag.short, metavar: flag.metavar, description: flag.description })
    }
  })

  it("its usage line spells exactly its declared flags", () => {
    const line = usageLine(command)
    const spelled = [...line.matchAll(/(?<![\w-])(--[a-z-]+|-[a-zA-Z])(?![\w-])/g)].map((m) => m[1]!)
    const expected = flagsOf(command).map((f) => (f.short === undefined ? `--${f.name}` : `-${f.short}`))
    expect([...spelled].sort()).toEqual([...expected].sort())
  })

  it("docs/cli.md's reference lists exactly its declared flags", () => {
    expect(documentedFlags(command)).toEqual(declared(command))
  })

  it.each(shells)("%s completes exactly its declared flags after `--` (a switch with its `--no-` form)", async (shell) => {
    const offered = (await complete(shell, `dispatch ${named(command)} --`)).filter((word) => word.startsWith("--"))
    const negations = flagsOf(command).flatMap((f) => (f.negation === undefined ? [] : [`--${f.negation}`]))
    expect([...offered].sort()).toEqual([...declared(command), ...negations].sort())
  })
})
