// Reading a command's values with its declared flags: every problem of a line named, each flag's default.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { Argument, Flag } from "effect/cli"
import { type CommandDeclaration, Commands } from "../src/Commands.ts"
import { type ArgList, declaredDefault, readValues } from "../src/FlagReader.ts"

const listOf = (flags: Record<string, ReadonlyArray<string>>, positional: ReadonlyArray<string> = []): ArgList => ({
  flags: new Map(Object.entries(flags)),
  positional
})

describe("readValues", () => {
  const spec = {
    words: ["test"],
    summary: "a command to read",
    flags: {
      request: Flag.String("request"),
      output: Flag.Literals("output", ["text", "json"]).pipe(Flag.withAlias("o"), Flag.withDefault("text")),
      runtime: Flag.String("runtime").pipe(Flag.atLeast(0)),
      sim: Flag.Boolean("sim").pipe(Flag.withDefault(false))
    }
  } satisfies CommandDeclaration

  test.prop([fc.dictionary(fc.constantFrom("colour", "request", "x", "sim", "output"), fc.array(fc.constantFrom("", "a", "json"), { maxLength: 3 })), fc.array(fc.constantFrom("stray", "word"), { maxLength: 2 })])(
    "a wrong command line yields problems, each naming a flag or a word, and never throws",
    (flags, positional) => {
      const options = readValues(spec, listOf(flags, positional))
      options.value("request")
      options.value("sim")
      options.value("output")
      for (const problem of options.problems) expect(problem).toMatch(/--[a-z]|-[a-z]\b|"stray"|"word"/)
      if (flags["colour"] !== undefined) expect(options.problems).toContain("unknown option --colour")
    }
  )

  it("names every problem at once", () => {
    const options = readValues(spec, listOf({ request: ["a", "b"], output: ["xml"], sim: ["1"], nope: [""] }, ["word"]))
    options.value("request")
    options.value("output")
    options.value("sim")
    expect(options.problems).toEqual([
      'unexpected argument "word"',
      "unknown option --nope",
      "--request is given more than once",
      '-o/--output "xml" is not one of text, json',
      "--sim takes no value"
    ])
  })

  it("reads a flag once: asked again, it gives the same value and names no problem twice", () => {
    const options = readValues(spec, listOf({ output: ["xml"], runtime: ["a", ""] }))
    expect([options.value("output"), options.value("output")]).toEqual(["text", "text"])
    expect([options.value("runtime"), options.value("runtime")]).toEqual([["a"], ["a"]])
    expect(options.problems).toEqual(['-o/--output "xml" is not one of text, json', "--runtime must name a file"])
  })

  it("names a stray word as unexpected unless the command takes one", () => {
    expect(readValues(spec, listOf({ request: ["r"] }, ["word"])).problems).toEqual(['unexpected argument "word"'])
    const taking = { ...spec, argument: Argument.String("trainjob").pipe(Argument.optional) }
    const options = readValues(taking, listOf({ request: ["r"] }, ["name", "more"]))
    expect(options.argument()).toBe("name")
    expect(options.problems).toEqual(['unexpected argument "more"'])
  })

  it("gives the fallback of an absent choice and reports an absent required flag", () => {
    const options = readValues(spec, listOf({}))
    expect(options.value("output")).toBe("text")
    expect(options.value("request")).toBeUndefined()
    expect(options.problems).toEqual(["--request is required"])
  })
})

describe("declaredDefault", () => {
  it("is what a declared flag gives when the line leaves it out, and nothing for a required, optional, unset or empty one", () => {
    expect(declaredDefault(Commands.serve.flags.port)).toBe("8080")
    expect(declaredDefault(Commands.serve.flags.host)).toBe("127.0.0.1")
    expect(declaredDefault(Commands.demo.flags.speed)).toBe("20")
    expect(declaredDefault(Commands.render.flags.output)).toBe("yaml")
    expect(declaredDefault(Commands.stop.flags.wait)).toBe("0")
    expect(declaredDefault(Flag.String("label").pipe(Flag.withDefault("")))).toBe("")
    for (const none of [Commands.start.flags.request, Commands.start.flags.config, Commands.start.flags.sim, Commands.start.flags.runtime]) expect(declaredDefault(none)).toBeUndefined()
  })
})
