// kubectl's spellings, rewritten into the ones effect/cli reads, before it reads them: flags before the
// command (`dispatch -o json find ...`), a short flag glued to its value (`-ojson`), several values after
// one flag that takes many (`--runtime a.yaml b.yaml`) and `dispatch help <command>`. effect/cli reads
// none of these spellings; which flags take values is read off the commands' declarations. Pure.
import type { CommandDeclaration } from "./Commands.ts"
import { type FlagFacts, flagsOf } from "./FlagFacts.ts"

// effect/cli's own flag that takes a value, given before any command.
const completionsFlag: FlagFacts = { name: "completions", kind: "value", description: "print the completion script of a shell" }

const flagNamed = (specs: ReadonlyArray<CommandDeclaration>, word: string): FlagFacts | undefined => {
  const all = [...specs.flatMap(flagsOf), completionsFlag]
  if (word.startsWith("--")) return all.find((f) => f.name === word.slice(2).split("=")[0])
  return all.find((f) => f.short !== undefined && f.short === word.slice(1, 2))
}

const isFlag = (word: string): boolean => word.startsWith("-") && word !== "-"

/** `-ojson` as `-o json`, for the short flags that take a value. */
const unglue = (specs: ReadonlyArray<CommandDeclaration>, argv: ReadonlyArray<string>): ReadonlyArray<string> =>
  argv.flatMap((word) => {
    // A long flag (`--output`) fails the pattern too: its second character is a dash.
    if (!/^-[A-Za-z][^=]/.test(word)) return [word]
    const known = flagNamed(specs, word)
    return known !== undefined && known.kind !== "switch" ? [word.slice(0, 2), word.slice(2)] : [word]
  })

/** The command whose words lead `words` (the longest such), if any. */
const commandAt = (specs: ReadonlyArray<CommandDeclaration>, words: ReadonlyArray<string>): CommandDeclaration | undefined =>
  [...specs].sort((a, b) => b.words.length - a.words.length).find((s) => s.words.every((w, i) => words[i] === w))

/** Splits off the flags (with their values) given before the command's words. */
const leadingFlags = (specs: ReadonlyArray<CommandDeclaration>, argv: ReadonlyArray<string>): number => {
  let i = 0
  while (i < argv.length && isFlag(argv[i] ?? "")) {
    const word = argv[i] ?? ""
    const known = flagNamed(specs, word)
    const inline = word.includes("=") || (!word.startsWith("--") && word.length > 2)
    i += known !== undefined && known.kind !== "switch" && !inline ? 2 : 1
  }
  return i
}

/** `--runtime a b` as `--runtime a --runtime b`, for the command's flags that take several values. */
const spreadMulti = (spec: CommandDeclaration, argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const out: Array<string> = []
  let multi: string | undefined
  for (const word of argv) {
    if (isFlag(word)) {
      const known = flagsOf(spec).find((f) => word === `--${f.name}`)
      multi = known?.kind === "multi" ? word : undefined
      out.push(word)
      continue
    }
    // The first value follows its flag; each further one gets the flag again.
    if (multi !== undefined && out[out.length - 1] !== multi) out.push(multi)
    out.push(word)
  }
  return out
}

/** The command line as effect/cli should read it. */
export const normalizeArgv = (specs: ReadonlyArray<CommandDeclaration>, argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const unglued = unglue(specs, argv)
  const lead = leadingFlags(specs, unglued)
  const before = unglued.slice(0, lead)
  let rest = unglued.slice(lead)
  let help: ReadonlyArray<string> = []
  if (rest[0] === "help") {
    rest = rest.slice(1)
    help = ["--help"]
  }
  const spec = commandAt(specs, rest)
  if (spec === undefined) return [...rest, ...before, ...help]
  const words = rest.slice(0, spec.words.length)
  return [...words, ...spreadMulti(spec, [...before, ...rest.slice(spec.words.length)]), ...help]
}
