import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { checkConfigMap, configMapKeyProblems, maxConfigMapBytes } from "../src/kinds/core/configmap/ConfigMapRules.ts"

const keyChars = fc.constantFrom(..."abcXYZ019-_.".split(""))
const goodKey = fc.string({ unit: keyChars, minLength: 1, maxLength: 253 }).filter((k) => k !== "." && !k.startsWith(".."))

describe("ConfigMap keys", () => {
  test.prop([goodKey])("alphanumerics, '-', '_' and '.' make a key, unless it is '.' or starts with '..'", (key) => {
    expect(configMapKeyProblems(key)).toEqual([])
  })

  test.prop([goodKey, fc.constantFrom("/", " ", ":", "é", "*"), fc.nat()])("any other character is refused", (key, bad, at) => {
    const i = at % (key.length + 1)
    expect(configMapKeyProblems(`${key.slice(0, i)}${bad}${key.slice(i)}`).join()).toContain("a valid config key")
  })

  it("refuses '.', '..', a '..' prefix, and keys over 253 characters", () => {
    expect(configMapKeyProblems(".")).toEqual(["must not be '.'"])
    expect(configMapKeyProblems("..")).toEqual(["must not be '..'"])
    expect(configMapKeyProblems("..a")).toEqual(["must not start with '..'"])
    expect(configMapKeyProblems("a".repeat(254))).toEqual(["must be no more than 253 characters"])
    expect(configMapKeyProblems("a".repeat(253))).toEqual([])
  })
})

describe("checkConfigMap", () => {
  it("refuses a key in both data and binaryData, bad base64, and more than 1 MiB", () => {
    expect(checkConfigMap({ data: { a: "1" }, binaryData: { a: "AQ==", b: "not base64!" } }, undefined).map((e) => `${e.field}: ${e.message}`)).toEqual([
      'binaryData[a]: Duplicate value: "a"',
      'binaryData[b]: Invalid value: "not base64!": illegal base64 data'
    ])
    expect(checkConfigMap({ binaryData: { "no/slash": "AQ==" } }, undefined).map((e) => e.field)).toEqual(["binaryData[no/slash]"])
    expect(checkConfigMap({ data: { big: "x".repeat(maxConfigMapBytes) } }, undefined).map((e) => [e.reason, e.field])).toEqual([["FieldValueTooLong", ""]])
    // A value of the wrong type is the schema check's to report; it counts for nothing here.
    expect(checkConfigMap({ data: { a: 1 }, binaryData: { b: 2 } }, undefined)).toEqual([])
    expect(checkConfigMap({ data: { big: "x".repeat(maxConfigMapBytes), n: 1 }, binaryData: { b: 2 } }, undefined).map((e) => e.reason)).toEqual(["FieldValueTooLong"])
    // binaryData counts the bytes its base64 stands for.
    expect(checkConfigMap({ binaryData: { bytes: "AAAA".repeat(300_000) } }, undefined)).toEqual([])
    expect(checkConfigMap({ binaryData: { big: "AAAA".repeat(maxConfigMapBytes / 3 + 1) } }, undefined).map((e) => e.reason)).toEqual(["FieldValueTooLong"])
    expect(checkConfigMap({ data: { big: "x".repeat(maxConfigMapBytes - 3) } }, undefined)).toEqual([])
  })

  test.prop([fc.dictionary(goodKey, fc.string()), fc.dictionary(goodKey, fc.string())])("once immutable, data and the flag stay as they are", (before, after) => {
    const old = { data: before, immutable: true }
    expect(checkConfigMap({ data: before, immutable: true }, old)).toEqual([])
    const changed = checkConfigMap({ data: after, immutable: true }, old).map((e) => e.field)
    const same = (a: Record<string, string>, b: Record<string, string>) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort())
    expect(changed).toEqual(same(before, after) ? [] : ["data"])
    expect(checkConfigMap({ data: before, immutable: false }, old).map((e) => `${e.field}: ${e.message}`)).toEqual(["immutable: Forbidden: field is immutable when `immutable` is set"])
    expect(checkConfigMap({ data: after }, { data: before })).toEqual([])
    expect(checkConfigMap({ data: before, immutable: true, binaryData: { k: "AQ==" } }, old).map((e) => `${e.field}: ${e.message}`)).toEqual(["binaryData: Forbidden: field is immutable when `immutable` is set"])
  })
})
