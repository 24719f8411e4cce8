// What FlagFacts reads off an effect/cli declaration: exactly what the declaration says.
import { fc, test } from "@fast-check/vitest"
import { Argument, Flag } from "effect/cli"
import { describe, expect, it } from "vitest"
import { argumentOf, displayFlag, flagFacts } from "../src/FlagFacts.ts"

const name = fc.stringMatching(/^[a-z][a-z-]{1,12}[a-z]$/)
const short = fc.option(fc.stringMatching(/^[a-z]$/), { nil: undefined })
const metavar = fc.stringMatching(/^[A-Z]{1,8}$/)
const description = fc.stringMatching(/^[a-z][a-z ,]{0,30}$/)

describe("flagFacts", () => {
  test.prop([name, short, metavar, description, fc.constantFrom("required", "optional", "default", "several", "several-at-least-one")])(
    "reads a value flag's name, alias, placeholder, description, kind and whether it must be given",
    (n, s, m, d, shape) => {
      const base = Flag.String(n).pipe(Flag.withMetavar(m), Flag.withDescription(d))
      const aliased = s === undefined ? base : base.pipe(Flag.withAlias(s))
      const flag: Flag.Flag<unknown> =
        shape === "required" ? aliased
        : shape === "optional" ? Flag.optional(aliased)
        : shape === "default" ? aliased.pipe(Flag.withDefault("x"))
        : aliased.pipe(Flag.atLeast(shape === "several" ? 0 : 1))
      const facts = flagFacts(flag)
      expect(facts).toEqual({
        name: n,
        kind: shape.startsWith("several") ? "multi" : "value",
        description: d,
        metavar: m,
        ...(s === undefined ? {} : { short: s }),
        ...(shape === "required" || shape === "several-at-least-one" ? { required: true } : {})
      })
    }
  )

  test.prop([name, short, description, fc.boolean()])("reads a switch: no placeholder, never required, and its --no- form unless declared without one", (n, s, d, negated) => {
    const base = Flag.Boolean(n).pipe(Flag.withDescription(d), (f) => (negated ? f : Flag.withoutNegation(f)), Flag.withDefault(false))
    const flag = s === undefined ? base : base.pipe(Flag.withAlias(s))
    expect(flagFacts(flag)).toEqual({ name: n, kind: "switch", description: d, ...(s === undefined ? {} : { short: s }), ...(negated ? { negation: `no-${n}` } : {}) })
  })

  test.prop([name, fc.uniqueArray(fc.stringMatching(/^[a-z]{1,6}$/), { minLength: 2, maxLength: 5 })])("reads a fixed set's words, in order, through a default and checks", (n, words) => {
    const flag = Flag.Literals(n, words).pipe(Flag.withDefault(words[0]!))
    expect(flagFacts(flag).choices).toEqual(words)
    expect(flagFacts(Flag.String(n)).choices).toBeUndefined()
  })

  it("reads an undescribed flag or word as described by nothing", () => {
    expect(flagFacts(Flag.String("bare")).description).toBe("")
    expect(argumentOf({ words: ["x"], summary: "s", flags: {}, argument: Argument.String("word") })?.description).toBe("")
  })

  it("sees through a value's check to the flag it checks", () => {
    const port = Flag.String("port").pipe(Flag.withMetavar("P"), Flag.filterMap(() => undefined as never, () => "a port"), Flag.withDefault(0))
    expect(flagFacts(port)).toMatchObject({ name: "port", kind: "value", metavar: "P" })
    expect(flagFacts(port).required).toBeUndefined()
  })
})

describe("argumentOf", () => {
  it("reads a positional word's name, description, whether it must be given and its fixed set", () => {
    const words = { words: ["x"], summary: "s", flags: {} }
    expect(argumentOf(words)).toBeUndefined()
    expect(argumentOf({ ...words, argument: Argument.String("trainjob").pipe(Argument.withDescription("a name"), Argument.optional) })).toEqual({ name: "trainjob", description: "a name", required: false })
    expect(argumentOf({ ...words, argument: Argument.Literals("shell", ["bash", "zsh"]).pipe(Argument.withDescription("a shell")) })).toEqual({ name: "shell", description: "a shell", required: true, choices: ["bash", "zsh"] })
  })
})

describe("displayFlag", () => {
  it("names a flag by both spellings where it has a one-letter one", () => {
    expect(displayFlag({ name: "output", short: "o" })).toBe("-o/--output")
    expect(displayFlag({ name: "request" })).toBe("--request")
  })
})
