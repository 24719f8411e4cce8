// kubectl's spellings rewritten into effect/cli's before it reads them: flags before the command, a short
// flag glued to its value, several values after a flag that takes many, and `help <command>`.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { allCommands } from "../src/Commands.ts"
import { normalizeArgv } from "../src/KubectlArgv.ts"

const specs = allCommands

describe("normalizeArgv", () => {
  test.prop([fc.array(fc.constantFrom("-o", "json", "--sim", "--kubeconfig", "k", "--runtime", "a", "b", "-", "find", "start"), { maxLength: 8 })])(
    "keeps every word (only reordered, or a glued value split off)",
    (argv) => {
      const normalized = normalizeArgv(specs, argv)
      const count = (words: ReadonlyArray<string>) => words.filter((w) => w !== "--runtime").sort()
      expect(count(normalized)).toEqual(count(argv))
    }
  )

  it("moves flags given before the command after its words and unglues -ojson", () => {
    expect(normalizeArgv(specs, ["-ojson", "--kubeconfig", "k", "sim", "serve", "--port", "0"])).toEqual(["sim", "serve", "-o", "json", "--kubeconfig", "k", "--port", "0"])
    expect(normalizeArgv(specs, ["help", "sim", "serve"])).toEqual(["sim", "serve", "--help"])
  })
})

describe("normalizeArgv, spelling by spelling", () => {
  it("spreads several values after a flag that takes many, and only for such a flag", () => {
    expect(normalizeArgv(specs, ["start", "--sim", "--runtime", "a.yaml", "b.yaml", "--request", "r"])).toEqual(["start", "--sim", "--runtime", "a.yaml", "--runtime", "b.yaml", "--request", "r"])
    expect(normalizeArgv(specs, ["start", "--request", "r", "stray"])).toEqual(["start", "--request", "r", "stray"])
  })

  it("splits a glued value off a short flag that takes one, never off a long flag or an = spelling", () => {
    expect(normalizeArgv(specs, ["find", "-ojson"])).toEqual(["find", "-o", "json"])
    expect(normalizeArgv(specs, ["find", "-o=json"])).toEqual(["find", "-o=json"])
    expect(normalizeArgv(specs, ["find", "--output=json"])).toEqual(["find", "--output=json"])
    expect(normalizeArgv(specs, ["find", "-nml"])).toEqual(["find", "-n", "ml"])
  })

  it("takes a flag's value before the command with it, and a lone - as a value", () => {
    expect(normalizeArgv(specs, ["-n", "ml", "find", "--sim"])).toEqual(["find", "-n", "ml", "--sim"])
    expect(normalizeArgv(specs, ["--sim", "find"])).toEqual(["find", "--sim"])
    expect(normalizeArgv(specs, ["render", "--request", "-"])).toEqual(["render", "--request", "-"])
  })

  it("answers help before a command with the command's --help, and leaves a line without a known command as it is", () => {
    expect(normalizeArgv(specs, ["help", "find"])).toEqual(["find", "--help"])
    expect(normalizeArgv(specs, ["help"])).toEqual(["--help"])
    expect(normalizeArgv(specs, ["-o", "json", "nope", "x"])).toEqual(["nope", "x", "-o", "json"])
  })

  it("leaves a short flag no command declares as it is: not unglued, and no value taken before the command", () => {
    expect(normalizeArgv(specs, ["find", "-xfoo"])).toEqual(["find", "-xfoo"])
    expect(normalizeArgv(specs, ["-x", "find", "--sim"])).toEqual(["find", "-x", "--sim"])
  })

  it("reads a lone - as a value, never as a flag", () => {
    expect(normalizeArgv(specs, ["-", "find"])).toEqual(["-", "find"])
    expect(normalizeArgv(specs, ["start", "--runtime", "a.yaml", "-"])).toEqual(["start", "--runtime", "a.yaml", "--runtime", "-"])
  })

  it("takes effect/cli's --completions with its shell before any command", () => {
    expect(normalizeArgv(specs, ["--completions", "bash"])).toEqual(["--completions", "bash"])
  })

  it("never takes a value for a glued short flag, even one with a short flag's letter and a dash inside", () => {
    expect(normalizeArgv(specs, ["find", "--kubeconfig", "no-config", "-n", "ro-ab"])).toEqual(["find", "--kubeconfig", "no-config", "-n", "ro-ab"])
  })

  it("takes an = spelling before the command as one word, and an undeclared long flag there without a value", () => {
    expect(normalizeArgv(specs, ["--output=json", "find"])).toEqual(["find", "--output=json"])
    expect(normalizeArgv(specs, ["--nope", "x", "find"])).toEqual(["x", "find", "--nope"])
  })

  it("matches the longest command: demo service, not demo", () => {
    expect(normalizeArgv(specs, ["-o", "json", "demo", "service"])).toEqual(["demo", "service", "-o", "json"])
    expect(normalizeArgv(specs, ["-o", "json", "demo"])).toEqual(["demo", "-o", "json"])
  })

  it("spreads values only until the next flag", () => {
    expect(normalizeArgv(specs, ["start", "--runtime", "a", "--request", "r", "b"])).toEqual(["start", "--runtime", "a", "--request", "r", "b"])
    expect(normalizeArgv(specs, ["start", "--runtime", "a", "--sim", "b"])).toEqual(["start", "--runtime", "a", "--sim", "b"])
  })
})
