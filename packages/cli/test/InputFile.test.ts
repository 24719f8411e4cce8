import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { stringify } from "yaml"
import { parseInputDocument } from "../src/InputFile.ts"

const json = fc.jsonValue({ maxDepth: 3 }).filter((v) => v !== null)

describe("parseInputDocument", () => {
  test.prop([json, fc.constantFrom("json", "yaml")])("reads back any JSON value written as JSON or as YAML", (value, format) => {
    const text = format === "json" ? JSON.stringify(value) : stringify(value)
    const parsed = parseInputDocument("f", text)
    // Compared as JSON text: YAML keeps a -0 that JSON writes as 0.
    expect("value" in parsed && JSON.stringify(parsed.value)).toBe(JSON.stringify(value))
  })

  test.prop([fc.string({ maxLength: 200 })])("any text is one value or problems that each name the file, never a throw", (text) => {
    const parsed = parseInputDocument("in.yaml", text)
    if ("problems" in parsed) {
      expect(parsed.problems.length).toBeGreaterThan(0)
      for (const p of parsed.problems) expect(p.startsWith("in.yaml: ")).toBe(true)
    }
  })

  it("says where the text is not YAML, and refuses empty and multi-document files", () => {
    expect(parseInputDocument("r.yaml", "a: [1\n")).toEqual({ problems: [expect.stringMatching(/^r\.yaml: not valid YAML or JSON: .* at line \d+, column \d+$/)] })
    expect(parseInputDocument("r.yaml", "# only a comment\n")).toEqual({ problems: ["r.yaml: is empty"] })
    expect(parseInputDocument("r.yaml", "a: 1\n---\nb: 2\n")).toEqual({ problems: ["r.yaml: holds 2 documents, expected one"] })
  })

  it("refuses a document whose aliases expand without bound", () => {
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x]", ...Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`)].join("\n")
    expect(parseInputDocument("bomb.yaml", bomb)).toEqual({ problems: [expect.stringMatching(/^bomb\.yaml: cannot be read: /)] })
  })
})
