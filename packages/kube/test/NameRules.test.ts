// The name rules against apimachinery's own examples (the good and bad values of validation_test.go),
// plus laws that hold for every string.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import {
  dns1123LabelProblems,
  dns1123SubdomainProblems,
  annotationsProblems,
  annotationsSize,
  isDns1123Label,
  isDns1123Subdomain,
  isLabelValue,
  isQualifiedName,
  isRfc1035Label,
  labelsProblems,
  labelValueProblems,
  qualifiedNameProblems,
  rfc1035LabelProblems,
  utf8Length
} from "../src/NameRules.ts"

const a = (n: number, c = "a"): string => c.repeat(n)

// Upstream's IsDNS1123Label examples.
const labelGood = ["a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a", "1--a--b--2", a(63)]
const labelBad = [
  "", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1", "_", "a_", "_a", "a_b", "1_", "_1", "1_2",
  ".", "a.", ".a", "a.b", "1.", ".1", "1.2", " ", "a ", " a", "a b", "1 ", " 1", "1 2", a(64)
]
// Upstream's IsDNS1123Subdomain examples.
const subdomainGood = [
  "a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a", "1--a--b--2",
  "a.a", "ab.a", "abc.a", "a1.a", "a-1.a", "a--1--2--b.a", "a.1", "ab.1", "abc.1", "a1.1", "a-1.1", "a--1--2--b.1",
  "0.a", "01.a", "012.a", "1a.a", "1-a.a", "0.1", "01.1", "012.1", "1a.1", "1-a.1", "1--a--b--2.1",
  "a.b.c.d.e", "aa.bb.cc.dd.ee", "1.2.3.4.5", "11.22.33.44.55", a(253)
]
const subdomainBad = [
  "", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1", "_", "a_", "_a", "a_b", "1_", "_1", "1_2",
  ".", "a.", ".a", "a..b", "1.", ".1", "1..2", " ", "a ", " a", "a b", "1 ", " 1", "1 2",
  "A.a", "aB.a", "ab.A", "A1.a", "a1.A", "A.1", "aB.1", "A1.1", "1A.1", "0.A", "01.A", "012.A", "1A.a", "1a.A",
  "A.B.C.D.E", "AA.BB.CC.DD.EE", "a.B.c.d.e", "aa.bB.cc.dd.ee", "a@b", "a,b", "a;b", "a:b", "a%b", "a?b", "a$b", a(254)
]
// Upstream's IsDNS1035Label examples.
const rfc1035Good = ["a", "ab", "abc", "a1", "a-1", "a--1--2--b", a(63)]
const rfc1035Bad = ["0", "01", "012", "1a", "1-a", "1--a--b--2", ...labelBad]
// Upstream's IsQualifiedName examples.
const qualifiedGood = [
  "simple", "now-with-dashes", "1-starts-with-num", "1234", "simple/simple", "now-with-dashes/simple",
  "now-with-dashes/now-with-dashes", "now.with.dots/simple", "now-with.dashes-and.dots/simple", "1-num.2-num/3-num",
  "1234/5678", "1.2.3.4/5678", "Uppercase_Is_OK_123", "example.com/Uppercase_Is_OK_123", "requests.storage-foo",
  a(63), `${a(253)}/${a(63, "b")}`
]
const qualifiedBad = [
  "nospecialchars%^=@", "cantendwithadash-", "-cantstartwithadash-", "only/one/slash", "Example.com/abc",
  "example_com/abc", "example.com/", "/simple", a(64), `${a(254)}/abc`
]
// Upstream's IsValidLabelValue examples.
const labelValueGood = ["simple", "now-with-dashes", "1-starts-with-num", "end-with-num-1", "1234", a(63), ""]
const labelValueBad = ["nospecialchars%^=@", "Tama-nui-te-rā.is.Māori.sun", "\\backslashes\\are\\bad", "-starts-with-dash", "ends-with-dash-", ".starts.with.dot", "ends.with.dot.", a(64)]

const table: ReadonlyArray<readonly [string, (s: string) => boolean, ReadonlyArray<string>, ReadonlyArray<string>]> = [
  ["DNS-1123 label", isDns1123Label, labelGood, labelBad],
  ["DNS-1123 subdomain", isDns1123Subdomain, subdomainGood, subdomainBad],
  ["RFC 1035 label", isRfc1035Label, rfc1035Good, rfc1035Bad],
  ["qualified name", isQualifiedName, qualifiedGood, qualifiedBad],
  ["label value", isLabelValue, labelValueGood, labelValueBad]
]

describe.each(table)("%s, as apimachinery's examples say", (_, valid, good, bad) => {
  it.each(good.map((s) => [s.length > 20 ? `${s.slice(0, 12)}...(${s.length})` : JSON.stringify(s), s]))("accepts %s", (_, s) => expect(valid(s)).toBe(true))
  it.each(bad.map((s) => [s.length > 20 ? `${s.slice(0, 12)}...(${s.length})` : JSON.stringify(s), s]))("refuses %s", (_, s) => expect(valid(s)).toBe(false))
})

const labelChar = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789-")
const alnumChar = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789")
const label = fc.tuple(alnumChar, fc.string({ unit: labelChar, maxLength: 61 }), alnumChar).map(([h, m, t]) => `${h}${m}${t}`)

describe("laws", () => {
  test.prop([label])("every well-formed label of at most 63 is a label and a subdomain", (s) => {
    expect(isDns1123Label(s)).toBe(true)
    expect(isDns1123Subdomain(s)).toBe(true)
  })

  test.prop([fc.array(label, { minLength: 1, maxLength: 8 })])("dot-joined labels are a subdomain exactly when at most 253, whatever each label's length", (labels) => {
    const s = labels.join(".")
    expect(isDns1123Subdomain(s)).toBe(s.length <= 253)
    expect(isDns1123Label(s)).toBe(labels.length === 1)
  })

  test.prop([fc.string({ maxLength: 80 })])("an RFC 1035 label is a DNS-1123 label that starts with a letter", (s) => {
    expect(isRfc1035Label(s)).toBe(isDns1123Label(s) && /^[a-z]/.test(s))
  })

  test.prop([fc.string({ maxLength: 300 })])("a value is valid exactly when no problem is named", (s) => {
    expect(isDns1123Subdomain(s)).toBe(dns1123SubdomainProblems(s).length === 0)
    expect(isDns1123Label(s)).toBe(dns1123LabelProblems(s).length === 0)
    expect(isQualifiedName(s)).toBe(qualifiedNameProblems(s).length === 0)
  })

  test.prop([label, label])("a label key is a subdomain prefix, '/', and a name", (prefix, name) => {
    expect(isQualifiedName(`${prefix}/${name}`)).toBe(true)
    expect(isQualifiedName(`${prefix}/${name}/x`)).toBe(false)
  })

  it("names only the pattern for a malformed value at the length limit", () => {
    expect(dns1123LabelProblems(a(63, "A"))).toEqual([expect.stringMatching(/^a lowercase RFC 1123 label must consist/)])
    expect(dns1123SubdomainProblems(a(253, "A"))).toEqual([expect.stringMatching(/^a lowercase RFC 1123 subdomain must consist/)])
    expect(rfc1035LabelProblems(a(63, "0"))).toEqual([expect.stringMatching(/^a DNS-1035 label must consist .* start with an alphabetic character/)])
    expect(labelValueProblems(a(63, "-"))).toEqual([expect.stringMatching(/^a valid label must be an empty string or consist/)])
    expect(qualifiedNameProblems(`p/${a(63, "-")}`)).toEqual([expect.stringMatching(/^name part must consist of alphanumeric characters/)])
  })

  it("words a qualified name's problems as the API server does", () => {
    expect(qualifiedNameProblems("a/b/c")).toEqual([expect.stringMatching(/^a qualified name must consist of .* with an optional DNS subdomain prefix and '\/'/)])
    expect(qualifiedNameProblems("Example.com/abc")).toEqual([expect.stringMatching(/^prefix part a lowercase RFC 1123 subdomain must consist/)])
    expect(qualifiedNameProblems(`p/${a(64)}`)).toEqual(["name part must be no more than 63 characters"])
  })

  it("counts an annotation map's keys and string values in UTF-8, and nothing for a value that is not a string", () => {
    expect(annotationsSize({ ab: "é", c: 5 as unknown as string })).toBe(2 + 2 + 1)
    expect(annotationsSize({ a: ["xy"] as unknown as string })).toBe(1)
  })

  it("names both problems of a value too long and malformed, as the API server does", () => {
    expect(dns1123LabelProblems(`${a(64)}_`)).toEqual([expect.stringMatching(/no more than 63/), expect.stringMatching(/RFC 1123 label/)])
    expect(dns1123SubdomainProblems(a(254))).toEqual(["must be no more than 253 characters"])
    expect(qualifiedNameProblems("/x")).toEqual(["prefix part must be non-empty"])
    expect(qualifiedNameProblems("x/")).toEqual(["name part must be non-empty"])
  })

  test.prop([fc.string({ unit: "binary", maxLength: 50 })])("utf8Length is the size of the string's UTF-8 encoding", (s) => {
    expect(utf8Length(s)).toBe(Buffer.byteLength(s, "utf8"))
  })
})

// An independent, character-by-character statement of the rules, to check the regex-based checker against.
const alnum = (c: string): boolean => /^[A-Za-z0-9]$/.test(c)
const lowerAlnum = (c: string): boolean => /^[a-z0-9]$/.test(c)
const refLabelValue = (v: string): boolean =>
  v === "" || (v.length <= 63 && alnum(v[0]!) && alnum(v[v.length - 1]!) && [...v].every((c) => alnum(c) || c === "-" || c === "_" || c === "."))
const refLabelCharacters = (s: string): boolean =>
  s.length >= 1 && lowerAlnum(s[0]!) && lowerAlnum(s[s.length - 1]!) && [...s].every((c) => lowerAlnum(c) || c === "-")
const refDnsLabel = (s: string): boolean => s.length <= 63 && refLabelCharacters(s)
// Upstream holds a subdomain to 253 in all, not each of its labels to 63.
const refSubdomain = (s: string): boolean => s.length <= 253 && s.split(".").every(refLabelCharacters)
const refQualified = (k: string): boolean => {
  const parts = k.split("/")
  if (parts.length > 2) return false
  const name = parts[parts.length - 1]!
  return (parts.length === 1 || refSubdomain(parts[0]!)) && name.length >= 1 && refLabelValue(name)
}

const alphabet = (chars: string, maxLength: number, minLength = 0): fc.Arbitrary<string> => fc.string({ unit: fc.constantFrom(...chars), minLength, maxLength })
const keyish = alphabet("ab-._/Z9", 70)

describe("the name rules, against a character-by-character statement of them", () => {
  test.prop([fc.oneof(alphabet("aZ9-_.", 70), fc.string())])("isLabelValue agrees with the rule stated character by character", (v) => {
    expect(isLabelValue(v)).toBe(refLabelValue(v))
  })
  test.prop([fc.oneof(keyish, fc.string())])("isQualifiedName agrees with the rule stated character by character", (k) => {
    expect(isQualifiedName(k)).toBe(refQualified(k))
  })
  test.prop([fc.oneof(alphabet("a9-.", 80), alphabet("ab", 70, 55).chain((a) => alphabet("a.", 3).map((b) => `${a}${b}${a}`)))])("isDns1123Subdomain agrees with the rule stated label by label", (s) => {
    expect(isDns1123Subdomain(s)).toBe(refSubdomain(s))
  })
  test.prop([alphabet("az09-", 70)])("an RFC 1035 label is a DNS label starting with a letter", (s) => {
    expect(isRfc1035Label(s)).toBe(refDnsLabel(s) && /^[a-z]/.test(s))
  })
  it("knows the boundaries", () => {
    expect(isLabelValue("a".repeat(63))).toBe(true)
    expect(isLabelValue("a".repeat(64))).toBe(false)
    expect(isRfc1035Label(`a${"0".repeat(62)}`)).toBe(true)
    expect(isRfc1035Label(`a${"0".repeat(63)}`)).toBe(false)
    expect(isQualifiedName(`${"a".repeat(253)}/b`)).toBe(true)
    expect(isQualifiedName(`${"a".repeat(254)}/b`)).toBe(false)
    expect(isQualifiedName(`${"a.".repeat(126)}a/${"b".repeat(63)}`)).toBe(true)
    expect(isQualifiedName("x".repeat(1_000_000))).toBe(false)
    expect(isDns1123Label("a".repeat(63))).toBe(true)
    expect(isDns1123Label("a".repeat(64))).toBe(false)
    const labels63 = (n: number) => Array.from({ length: n }, () => "a".repeat(63)).join(".")
    // Four labels of 63 and their dots are 255 characters: cut to 253 and 254.
    expect(isDns1123Subdomain(labels63(4).slice(0, 253))).toBe(true)
    expect(isDns1123Subdomain(`${labels63(4).slice(0, 252)}ab`)).toBe(false)
    expect(isDns1123Subdomain(`b.${"a".repeat(63)}`)).toBe(true)
    expect(isDns1123Subdomain(`b.${"a".repeat(64)}`)).toBe(true)
    expect(isQualifiedName("a/b")).toBe(true)
    expect(isQualifiedName("a".repeat(63))).toBe(true)
    expect(isQualifiedName("a".repeat(64))).toBe(false)
    expect(isQualifiedName(`p/${"a".repeat(64)}`)).toBe(false)
    expect(isQualifiedName("p/")).toBe(false)
    expect(isQualifiedName("")).toBe(false)
  })
  it("names every bad key and value in a label map", () => {
    expect(labelsProblems({ "ok/fine": "v", "-bad": "v", good: "bad value" })).toEqual([
      expect.stringMatching(/^label key "-bad": name part must consist of/),
      expect.stringMatching(/^label "good" value "bad value": a valid label must be/)
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
    expect(annotationsProblems({ a: "x".repeat(262_143) })).toEqual([])
    expect(annotationsProblems({ a: "x".repeat(262_144) })).toEqual(["annotations take 262145 bytes, more than 262144"])
    // Counted in UTF-8: 131,072 two-byte characters are 262,144 bytes.
    expect(annotationsProblems({ b: "é".repeat(131_072) })).toEqual(["annotations take 262145 bytes, more than 262144"])
  })
  it("names a bad annotation key", () => {
    expect(annotationsProblems({ "ok/fine": "v", "-bad": "v" })).toEqual([expect.stringMatching(/^annotation key "-bad": name part must consist of/)])
  })
})
