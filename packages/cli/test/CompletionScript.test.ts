// The completion scripts' value types, read from the commands' declarations.
import { Completions } from "effect/cli"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type CommandDeclaration, Commands } from "../src/Commands.ts"
import { type FlagFacts, argumentOf, flagsOf } from "../src/FlagFacts.ts"
import { completionsShell, fishScript, flagType, withValueTypes } from "../src/CompletionScript.ts"

const valueFlag = (metavar: string): FlagFacts => ({ name: "f", kind: "value", description: "d", metavar })

describe("flagType", () => {
  it("reads a placeholder `a|b|c` as exactly that set, in order", () => {
    const word = fc.stringMatching(/^[a-z]{1,8}$/)
    fc.assert(
      fc.property(fc.array(word, { minLength: 2, maxLength: 6 }), (values) => {
        expect(flagType(valueFlag(values.join("|")))).toEqual({ _tag: "Choice", values })
      })
    )
  })

  it("reads FILE and DIR as paths and leaves any other placeholder free text", () => {
    expect(flagType(valueFlag("FILE"))).toEqual({ _tag: "Path", pathType: "file" })
    expect(flagType(valueFlag("DIR"))).toEqual({ _tag: "Path", pathType: "directory" })
    fc.assert(fc.property(fc.stringMatching(/^[A-Z][A-Z,[\]-]{0,12}$/).filter((m) => m !== "FILE" && m !== "DIR"), (m) => flagType(valueFlag(m)) === undefined))
  })
})

describe("withValueTypes", () => {
  const specs: ReadonlyArray<CommandDeclaration> = Object.values(Commands)
  const descriptor: Completions.CommandDescriptor = {
    name: "dispatch",
    description: undefined,
    flags: [],
    arguments: [],
    subcommands: specs.map((spec) => ({
      name: spec.words.join(" "),
      description: spec.summary,
      flags: flagsOf(spec).map((f) => ({ name: f.name, aliases: [], description: f.description, type: { _tag: "String" } as const })),
      arguments: argumentOf(spec) === undefined ? [] : [{ name: argumentOf(spec)!.name, description: undefined, required: false, variadic: false, type: { _tag: "String" } as const }],
      subcommands: []
    }))
  }
  const typed = withValueTypes(descriptor, specs)

  it("keeps every command, flag and argument, changing only the types the specs give", () => {
    const shape = (d: Completions.CommandDescriptor): unknown => ({ ...d, flags: d.flags.map((f) => ({ ...f, type: undefined })), arguments: d.arguments.map((a) => ({ ...a, type: undefined })), subcommands: d.subcommands.map(shape) })
    expect(shape(typed)).toEqual(shape(descriptor))
    for (const [i, spec] of specs.entries()) {
      for (const [j, flag] of flagsOf(spec).entries()) expect(typed.subcommands[i]!.flags[j]!.type).toEqual(flagType(flag) ?? { _tag: "String" })
    }
  })
})

describe("completionsShell", () => {
  it("finds --completions SHELL and --completions=SHELL anywhere, and nothing without a shell", () => {
    expect(completionsShell(["--completions", "zsh"])).toBe("zsh")
    expect(completionsShell(["render", "--completions=fish"])).toBe("fish")
    expect(completionsShell(["render", "--completions"])).toBeUndefined()
    expect(completionsShell(["render", "--request", "r.json"])).toBeUndefined()
  })
})

describe("fishScript", () => {
  const line = (condition: string) => `complete -c dispatch -n '${condition}' -f`
  const commands = [
    { words: ["serve"], summary: "s", flags: {} },
    { words: ["serve", "hash-token"], summary: "s", flags: {} },
    { words: ["sim", "serve"], summary: "s", flags: {} },
    { words: ["render"], summary: "s", flags: {} }
  ]

  it("offers a command that shares its name with another's subcommand only where it is that command", () => {
    const script = [line("__fish_seen_subcommand_from serve"), line("__fish_seen_subcommand_from serve; and __fish_seen_subcommand_from hash-token"), line("__fish_seen_subcommand_from sim; and __fish_seen_subcommand_from serve"), line("__fish_seen_subcommand_from render")].join("\n")
    expect(fishScript(script, commands).split("\n")).toEqual([
      line("__fish_seen_subcommand_from serve; and not __fish_seen_subcommand_from sim"),
      line("__fish_seen_subcommand_from serve; and not __fish_seen_subcommand_from sim; and __fish_seen_subcommand_from hash-token"),
      line("__fish_seen_subcommand_from sim; and __fish_seen_subcommand_from serve"),
      line("__fish_seen_subcommand_from render")
    ])
  })

  it("leaves a script whose commands share no name untouched", () => {
    const script = [line("__fish_seen_subcommand_from render"), line("__fish_seen_subcommand_from sim; and __fish_seen_subcommand_from serve")].join("\n")
    expect(fishScript(script, commands.filter((c) => c.words[0] !== "serve"))).toBe(script)
  })
})
