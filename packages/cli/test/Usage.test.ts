// The usage lines, made from the commands' declarations.
import { Argument, Flag } from "effect/cli"
import { describe, expect, it } from "vitest"
import { Commands } from "../src/Commands.ts"
import { optionsOf, usageLine } from "../src/Usage.ts"

describe("usageLine", () => {
  it("spells a required flag bare, an optional one in brackets, several values with ..., and alternatives together", () => {
    const command = {
      words: ["try", "it"],
      summary: "a command",
      flags: {
        request: Flag.String("request").pipe(Flag.withMetavar("FILE")),
        kubeconfig: Flag.optional(Flag.String("kubeconfig").pipe(Flag.withMetavar("FILE"))),
        runtime: Flag.String("runtime").pipe(Flag.withMetavar("FILE"), Flag.atLeast(0)),
        sim: Flag.Boolean("sim").pipe(Flag.withDefault(false)),
        output: Flag.Literals("output", ["text", "json"]).pipe(Flag.withAlias("o"), Flag.withMetavar("text|json"), Flag.withDefault("text"))
      },
      alternatives: ["sim", "kubeconfig"],
      argument: Argument.String("trainjob").pipe(Argument.optional)
    }
    expect(usageLine(command)).toBe("usage: dispatch try it [<trainjob>] --request FILE [--kubeconfig FILE | --sim] [--runtime FILE [FILE ...]] [-o text|json]")
  })

  it("is the command's words alone when it takes nothing, and names a positional word it needs bare", () => {
    expect(usageLine({ words: ["probe"], summary: "s", flags: {} })).toBe("usage: dispatch probe")
    expect(optionsOf(Commands.completion)).toBe("<shell>")
  })
})
