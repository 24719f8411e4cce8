import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { parseArgList } from "../src/ArgList.ts"
import { readOptions } from "../src/OptionReader.ts"

const value = fc.stringMatching(/^[a-z0-9./_][a-z0-9./_-]{0,15}$/)

describe("parseArgList", () => {
  test.prop([fc.array(fc.tuple(fc.constantFrom("request", "config", "output"), value), { maxLength: 6 }), fc.boolean()])(
    "reads every --flag value and --flag=value pair back in order",
    (pairs, equals) => {
      const argv = pairs.flatMap(([flag, v]) => (equals ? [`--${flag}=${v}`] : [`--${flag}`, v]))
      const list = parseArgList(argv)
      for (const flag of ["request", "config", "output"]) {
        const expected = pairs.filter(([f]) => f === flag).map(([, v]) => v)
        expect(list.flags.get(flag) ?? []).toEqual(expected)
      }
      expect(list.positional).toEqual([])
    }
  )

  it("takes switches without values, several values after a multi flag, and -o as --output", () => {
    const list = parseArgList(["--sim", "--runtime", "a", "b", "-o", "json", "stray"], { switches: new Set(["sim"]), multi: new Set(["runtime"]), short: new Map([["o", "output"]]) })
    expect(Object.fromEntries(list.flags)).toEqual({ sim: [""], runtime: ["a", "b"], output: ["json"] })
    expect(list.positional).toEqual(["stray"])
    expect(parseArgList(["--request"]).missingValues).toEqual(["request"])
  })
})

describe("readOptions", () => {
  const spec = { values: ["request", "output"], multi: ["runtime"], switches: ["sim"] }

  test.prop([fc.array(fc.constantFrom("--colour", "--request", "-x", "stray", "--sim=yes", "--request=", "-o"), { minLength: 1, maxLength: 6 })])(
    "a wrong command line yields problems, each naming a flag or a word, and never throws",
    (argv) => {
      const options = readOptions(argv, spec)
      options.required("request")
      options.switch("sim")
      options.choice("output", ["text", "json"], "text")
      for (const problem of options.problems) expect(problem).toMatch(/--[a-z]|-[a-z]\b|"stray"/)
      if (argv.includes("--colour")) expect(options.problems).toContain("unknown option --colour")
    }
  )

  it("names every problem at once", () => {
    const options = readOptions(["word", "--request", "a", "--request", "b", "-o", "xml", "--sim=1", "--nope"], spec)
    options.required("request")
    options.choice("output", ["text", "json"], "text")
    options.switch("sim")
    expect(options.problems).toEqual([
      'unexpected argument "word"',
      "unknown option --nope",
      "--request is given more than once",
      '-o/--output "xml" is not one of text, json',
      "--sim takes no value"
    ])
  })

  it("gives the fallback of an absent choice and reports an absent required flag", () => {
    const options = readOptions([], spec)
    expect(options.choice("output", ["text", "json"], "text")).toBe("text")
    expect(options.required("request")).toBeUndefined()
    expect(options.problems).toEqual(["--request is required"])
  })
})
