import { describe, expect, it } from "vitest"
import { preview } from "../src/Preview.ts"

describe("preview", () => {
  it("quotes a string of up to 64 characters whole, and cuts a longer one at 64, saying how long it was", () => {
    expect(preview("a".repeat(64))).toBe(JSON.stringify("a".repeat(64)))
    expect(preview("a".repeat(65))).toBe(`${JSON.stringify("a".repeat(64))}... (65 characters)`)
    expect(preview('say "hi"\n')).toBe('"say \\"hi\\"\\n"')
  })

  it.each([
    [7, "7"],
    [-1.5, "-1.5"],
    [true, "true"],
    [false, "false"],
    [null, "null"],
    [undefined, "nothing"],
    [[1, 2, 3], "an array of 3"],
    [{ a: 1 }, "an object"],
    [10n, "a bigint"],
    [Symbol("s"), "a symbol"],
    [() => 1, "a function"]
  ])("shows %s as %s, never its contents", (value, shown) => {
    expect(preview(value)).toBe(shown)
  })
})
