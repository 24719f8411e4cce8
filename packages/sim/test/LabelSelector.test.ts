import { test as propTest, fc } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { matchesLabels, parseLabelSelector } from "../src/apiserver/lists/LabelSelector.ts"

const selects = (text: string, labels: Record<string, string>): boolean => {
  const parsed = parseLabelSelector(text)
  if (!parsed.ok) throw new Error(parsed.message)
  return matchesLabels(parsed.selector, labels)
}

const name = fc.stringMatching(/^[a-z0-9]([a-z0-9.-]{0,8}[a-z0-9])?$/)
const labels = fc.dictionary(name, name, { maxKeys: 4 })

describe("label selectors", () => {
  it("parses every operator", () => {
    expect(parseLabelSelector("a=b, c==d,e!=f,g in (h, i),j notin (k),l,!m")).toEqual({
      ok: true,
      selector: [
        { op: "in", key: "a", values: ["b"] },
        { op: "in", key: "c", values: ["d"] },
        { op: "notin", key: "e", values: ["f"] },
        { op: "in", key: "g", values: ["h", "i"] },
        { op: "notin", key: "j", values: ["k"] },
        { op: "exists", key: "l" },
        { op: "doesNotExist", key: "m" }
      ]
    })
    expect(parseLabelSelector("kueue.x-k8s.io/queue-name=q")).toMatchObject({ ok: true })
    expect(parseLabelSelector(`${"p".repeat(253)}/${"k".repeat(63)}=${"v".repeat(63)}`)).toMatchObject({ ok: true })
  })

  it("matches as the API server does", () => {
    const l = { env: "prod", tier: "web" }
    expect(selects("env=prod", l)).toBe(true)
    expect(selects("env==dev", l)).toBe(false)
    expect(selects("env!=dev", l)).toBe(true)
    expect(selects("missing!=x", l)).toBe(true)
    expect(selects("tier in (web,db)", l)).toBe(true)
    expect(selects("tier notin (web)", l)).toBe(false)
    expect(selects("missing notin (web)", l)).toBe(true)
    expect(selects("env", l)).toBe(true)
    expect(selects("!env", l)).toBe(false)
    expect(selects("env=prod,tier=db", l)).toBe(false)
    expect(selects("", l)).toBe(true)
  })

  it("refuses malformed selectors", () => {
    // A key is a qualified name: its name part at most 63, its prefix a DNS subdomain; a value at most 63.
    for (const bad of ["a=b=c", "bad key=x", "a in (x", "=x", "a,", "a=-x-", `${"k".repeat(64)}=v`, `Example.com/k=v`, `k=${"v".repeat(64)}`]) {
      expect(parseLabelSelector(bad).ok, bad).toBe(false)
    }
  })

  propTest.prop([labels])("the equality selector built from a label set matches it", (l) => {
    const text = Object.entries(l).map(([k, v]) => `${k}=${v}`).join(",")
    expect(selects(text, l)).toBe(true)
  })

  propTest.prop([labels, name, fc.array(name, { minLength: 1, maxLength: 3 })])("notin is the complement of in", (l, key, values) => {
    expect(selects(`${key} notin (${values.join(",")})`, l)).toBe(!selects(`${key} in (${values.join(",")})`, l))
  })

  propTest.prop([labels, name])("!key is the complement of key", (l, key) => {
    expect(selects(`!${key}`, l)).toBe(!selects(key, l))
  })
})
