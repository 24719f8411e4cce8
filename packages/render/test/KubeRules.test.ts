import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { annotationProblems, isDnsLabel, isDnsSubdomain, isLabelValue, isQualifiedName, isRfc1035Label, labelProblems, utf8Length } from "../src/KubeRules.ts"

// An independent, character-by-character statement of the rules, to check the regex-based checker against.
const alnum = (c: string): boolean => /^[A-Za-z0-9]$/.test(c)
const lowerAlnum = (c: string): boolean => /^[a-z0-9]$/.test(c)
const refLabelValue = (v: string): boolean =>
  v === "" || (v.length <= 63 && alnum(v[0]!) && alnum(v[v.length - 1]!) && [...v].every((c) => alnum(c) || c === "-" || c === "_" || c === "."))
const refDnsLabel = (s: string): boolean =>
  s.length >= 1 && s.length <= 63 && lowerAlnum(s[0]!) && lowerAlnum(s[s.length - 1]!) && [...s].every((c) => lowerAlnum(c) || c === "-")
const refSubdomain = (s: string): boolean => s.length <= 253 && s.split(".").every(refDnsLabel)
const refQualified = (k: string): boolean => {
  const parts = k.split("/")
  if (parts.length > 2) return false
  const name = parts[parts.length - 1]!
  return (parts.length === 1 || refSubdomain(parts[0]!)) && name.length >= 1 && refLabelValue(name)
}

const alphabet = (chars: string, maxLength: number, minLength = 0): fc.Arbitrary<string> => fc.string({ unit: fc.constantFrom(...chars), minLength, maxLength })
const keyish = alphabet("ab-._/Z9", 70)

describe("Kubernetes name rules", () => {
  test.prop([fc.oneof(alphabet("aZ9-_.", 70), fc.string())])("isLabelValue agrees with the rule stated character by character", (v) => {
    expect(isLabelValue(v)).toBe(refLabelValue(v))
  })
  test.prop([fc.oneof(keyish, fc.string())])("isQualifiedName agrees with the rule stated character by character", (k) => {
    expect(isQualifiedName(k)).toBe(refQualified(k))
  })
  test.prop([fc.oneof(alphabet("a9-.", 80), alphabet("ab", 70, 55).chain((a) => alphabet("a.", 3).map((b) => `${a}${b}${a}`)))])("isDnsSubdomain agrees with the rule stated label by label", (s) => {
    expect(isDnsSubdomain(s)).toBe(refSubdomain(s))
  })
  test.prop([alphabet("az09-", 70)])("an RFC 1035 label is a DNS label starting with a letter", (s) => {
    expect(isRfc1035Label(s)).toBe(refDnsLabel(s) && /^[a-z]/.test(s))
  })
  it("knows the boundaries", () => {
    expect(isLabelValue("a".repeat(63))).toBe(true)
    expect(isLabelValue("a".repeat(64))).toBe(false)
    expect(isRfc1035Label(`a${"0".repeat(62)}`)).toBe(true)
    expect(isRfc1035Label(`a${"0".repeat(63)}`)).toBe(false)
    expect(isQualifiedName(`${"a".repeat(253)}/b`)).toBe(false)
    expect(isQualifiedName(`${"a.".repeat(126)}a/${"b".repeat(63)}`)).toBe(true)
    expect(isQualifiedName("x".repeat(1_000_000))).toBe(false)
    expect(isDnsLabel("a".repeat(63))).toBe(true)
    expect(isDnsLabel("a".repeat(64))).toBe(false)
    const labels63 = (n: number) => Array.from({ length: n }, () => "a".repeat(63)).join(".")
    // Four labels of 63 and their dots are 255 characters: cut to 253 and 254.
    expect(isDnsSubdomain(labels63(4).slice(0, 253))).toBe(true)
    expect(isDnsSubdomain(`${labels63(4).slice(0, 252)}ab`)).toBe(false)
    expect(isDnsSubdomain(`b.${"a".repeat(63)}`)).toBe(true)
    expect(isDnsSubdomain(`b.${"a".repeat(64)}`)).toBe(false)
    expect(isQualifiedName("a/b")).toBe(true)
    expect(isQualifiedName("a".repeat(63))).toBe(true)
    expect(isQualifiedName("a".repeat(64))).toBe(false)
    expect(isQualifiedName(`p/${"a".repeat(64)}`)).toBe(false)
    expect(isQualifiedName("p/")).toBe(false)
    expect(isQualifiedName("")).toBe(false)
  })
  it("names every bad key and value in a label map", () => {
    expect(labelProblems({ "ok/fine": "v", "-bad": "v", good: "bad value" })).toEqual([
      'label key "-bad" is not a qualified name',
      'label "good" has an invalid value "bad value"'
    ])
  })
  // "binary" draws every code unit, lone surrogates included; the default draws ASCII only.
  test.prop([fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.string({ unit: fc.integer({ min: 0xd7f0, max: 0xe010 }).map((u) => String.fromCharCode(u)) }))])(
    "utf8Length matches the encoder",
    (s) => {
      expect(utf8Length(s)).toBe(new TextEncoder().encode(s).length)
    }
  )
  it.each([
    ["\u007f", 1],
    ["\u0080", 2],
    ["\u07ff", 2],
    ["\u0800", 3],
    ["\ud7ff", 3],
    ["\ud800\udc00", 4],
    ["\udbff\udfff", 4],
    ["\udc00", 3],
    ["\ue000", 3],
    ["\ud800", 3],
    ["a\ud800", 4],
    ["\ud800a", 4],
    ["\ud800\ud800\udc00", 7],
    ["\ud83d\ude00\ud83d\ude00", 8],
    ["\udbff\ue000", 6],
    // A low surrogate after a unit that is not a high one: both alone.
    ["\ud7ff\udc00", 6],
    ["\udc00\udc00", 6],
    ["\ue000\udfff", 6]
  ])("counts %j as %i UTF-8 bytes, as the API server does (a lone surrogate is U+FFFD, 3 bytes)", (s, bytes) => {
    expect(utf8Length(s)).toBe(bytes)
    expect(new TextEncoder().encode(s).length).toBe(bytes)
  })
  it("limits all annotations together to 256 KiB", () => {
    expect(annotationProblems({ a: "x".repeat(262_143) })).toEqual([])
    expect(annotationProblems({ a: "x".repeat(262_144) })).toEqual(["annotations take 262145 bytes, more than 262144"])
    // Counted in UTF-8: 131,072 two-byte characters are 262,144 bytes.
    expect(annotationProblems({ b: "é".repeat(131_072) })).toEqual(["annotations take 262145 bytes, more than 262144"])
  })
  it("names a bad annotation key", () => {
    expect(annotationProblems({ "ok/fine": "v", "-bad": "v" })).toEqual(['annotation key "-bad" is not a qualified name'])
  })
})
