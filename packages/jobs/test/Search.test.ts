import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { checkSearchFields, likePattern, parseSearch, quoteSearch, searchMatches, termMatches, type SearchTerm } from "../src/index.ts"
import { failureOf, successOf } from "./Fixtures.ts"

const terms = (search: string): ReadonlyArray<SearchTerm> => successOf(parseSearch(search))
const one = (search: string): SearchTerm => {
  const [term, ...rest] = terms(search)
  expect(rest).toEqual([])
  return term as SearchTerm
}

// A reference reading of a LIKE pattern with `\` as escape, written independently of the matcher.
const likeMatches = (pattern: string, value: string): boolean => {
  let source = ""
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] ?? ""
    if (c === "\\") source += [...(pattern[++i] ?? "")].map((x) => `\\u{${x.codePointAt(0)?.toString(16)}}`).join("")
    else if (c === "%") source += "[\\s\\S]*"
    else if (c === "_") source += "[\\s\\S]"
    else source += `\\u{${c.codePointAt(0)?.toString(16)}}`
  }
  return new RegExp(`^${source}$`, "u").test(value)
}

const text = fc.string({ maxLength: 12, unit: fc.constantFrom("a", "b", " ", "*", "?", "\\", '"', "'", ",", ":", "%", "_", "\n", "é") })

describe("parseSearch", () => {
  test.prop([text])("a quoted value matches exactly the text it quotes, as a field term", (value) => {
    const term = one(`name:${quoteSearch(value)}`)
    expect(termMatches(term, value)).toBe(true)
    expect(termMatches(term, `${value}x`)).toBe(false)
    expect(likeMatches(likePattern(term), value)).toBe(true)
  })

  test.prop([text, text, text])("a bare quoted value matches wherever it occurs in a field", (before, value, after) => {
    const term = one(quoteSearch(value))
    expect(searchMatches([term], { description: `${before}${value}${after}` })).toBe(true)
  })

  test.prop([text, text])("the LIKE pattern and the matcher agree", (search, value) => {
    const parsed = parseSearch(`name:${quoteSearch(search).replace(/\\\*/g, "*")}`)
    fc.pre(Result.isSuccess(parsed))
    for (const term of (parsed as Result.Success<ReadonlyArray<SearchTerm>, never>).success) {
      expect(likeMatches(likePattern(term), value)).toBe(termMatches(term, value))
    }
  })

  test.prop([fc.array(fc.stringMatching(/^[a-z]{1,6}$/), { minLength: 1, maxLength: 4 })])("comma-separated terms are each kept", (values) => {
    expect(terms(values.join(",")).length).toBe(values.length)
    expect(searchMatches(terms(values.join(",")), { name: values.join("-") })).toBe(true)
  })

  it("reads fields, wildcards, quotes and several terms", () => {
    expect(terms("description:*job*")).toEqual([{ field: "description", pieces: [{ _tag: "AnyRun" }, { _tag: "Text", text: "job" }, { _tag: "AnyRun" }] }])
    expect(searchMatches(terms("description:*job*"), { description: "a nightly job run" })).toBe(true)
    expect(searchMatches(terms("description:job"), { description: "a nightly job run" })).toBe(false)
    expect(searchMatches(terms('name:"my queue", description:x'), { name: "my queue" })).toBe(false)
    expect(searchMatches(terms("name:q?"), { name: "q1" })).toBe(true)
    expect(searchMatches(terms("name:q?"), { name: "q12" })).toBe(false)
    expect(searchMatches(terms("nightly run"), { name: "x", description: "a nightly run" })).toBe(true)
    expect(searchMatches(terms("name:a, nightly"), { name: "a", description: "nightly" })).toBe(true)
    expect(searchMatches(terms("name:a, nightly"), { name: "b", description: "nightly" })).toBe(false)
    expect(likePattern(one("name:50%_off*"))).toBe("50\\%\\_off%")
    expect(likePattern(one("job"))).toBe("%job%")
    expect(terms("")).toEqual([])
  })

  it("refuses what is not the language, saying where", () => {
    expect(failureOf(parseSearch("name:two words")).message).toContain("may not hold spaces unless quoted")
    expect(failureOf(parseSearch('name:"open')).message).toContain("never closed")
    expect(failureOf(parseSearch("a,,b")).message).toContain("a term needs a value")
    expect(failureOf(parseSearch("name:")).message).toContain("after name:")
    expect(failureOf(parseSearch("x\\q")).message).toContain("a backslash escapes only one of")
    expect(failureOf(parseSearch("a1:b")).message).toContain("a colon follows a field name")
  })

  it("names every field a list cannot be searched by", () => {
    const problem = failureOf(checkSearchFields("colour:red,size:9,name:x", terms("colour:red,size:9,name:x"), ["name", "description"]))
    expect(problem._tag).toBe("InvalidSearch")
    expect(problem.message).toContain('"colour", "size" are not fields this list can be searched by; fields: name, description')
  })
})
