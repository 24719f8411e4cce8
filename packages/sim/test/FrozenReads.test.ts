import { test as propTest, fc } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { readOnce } from "../src/controllers/shared/FrozenReads.ts"

describe("reads of frozen parts", () => {
  propTest.prop([fc.jsonValue(), fc.boolean()])("read once per frozen value, afresh for anything else, and always as read says", (value, freeze) => {
    let calls = 0
    const read = readOnce((v) => {
      calls++
      return { text: JSON.stringify(v) }
    })
    const given = freeze && typeof value === "object" && value !== null ? Object.freeze(value) : value
    const first = read(given)
    const second = read(given)
    expect(first).toEqual({ text: JSON.stringify(value) })
    expect(second).toEqual(first)
    const remembered = typeof given === "object" && given !== null && Object.isFrozen(given)
    expect(second === first).toBe(remembered)
    expect(calls).toBe(remembered ? 1 : 2)
  })
})
