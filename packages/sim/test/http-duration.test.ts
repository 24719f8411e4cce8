import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { humanDuration } from "../src/http/HumanDuration.ts"

const unitSeconds: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, y: 365 * 86_400 }

const secondsIn = (text: string): number =>
  [...text.matchAll(/(\d+)([smhdy])/g)].reduce((sum, [, n, unit]) => sum + Number(n) * (unitSeconds[unit ?? "s"] ?? 0), 0)

describe("humanDuration", () => {
  test.prop([fc.integer({ min: 1000, max: 20 * 365 * 86_400_000 })])("never overstates and loses less than half", (ms) => {
    const text = humanDuration(ms)
    expect(text).toMatch(/^(\d+[smhdy]){1,2}$/)
    const seconds = Math.floor(ms / 1000)
    expect(secondsIn(text)).toBeLessThanOrEqual(seconds)
    expect(secondsIn(text) * 2).toBeGreaterThan(seconds)
  })

  test.prop([fc.integer({ min: 0, max: 119_999 })])("is exact in seconds under two minutes", (ms) => {
    expect(humanDuration(ms)).toBe(`${Math.floor(ms / 1000)}s`)
  })

  it("follows the API server's steps", () => {
    expect(humanDuration(-500)).toBe("0s")
    expect(humanDuration(-5000)).toBe("<invalid>")
    expect(humanDuration(192_000)).toBe("3m12s")
    expect(humanDuration(180_000)).toBe("3m")
    expect(humanDuration(65 * 60_000)).toBe("65m")
    expect(humanDuration(200 * 60_000)).toBe("3h20m")
    expect(humanDuration(30 * 3_600_000)).toBe("30h")
    expect(humanDuration(52 * 3_600_000)).toBe("2d4h")
    expect(humanDuration(20 * 86_400_000)).toBe("20d")
    expect(humanDuration(3 * 365 * 86_400_000)).toBe("3y")
  })
})
