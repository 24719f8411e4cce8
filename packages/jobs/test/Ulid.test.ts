import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { isJobId } from "@dispatch/render"
import { describe, expect, it } from "vitest"
import { maxUlidTime, ulid } from "../src/index.ts"
import { failureOf, successOf } from "./Fixtures.ts"

const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
const time = fc.integer({ min: 0, max: maxUlidTime })
const entropy = fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 10, maxLength: 10 })

// Decoding by hand, independently of the encoder, to prove the seed is carried bit for bit.
const decode = (id: string): { time: number; entropy: Array<number> } => {
  let value = 0n
  for (const c of id) value = value * 32n + BigInt(alphabet.indexOf(c))
  const bytes = Array.from({ length: 10 }, (_, i) => Number((value >> BigInt(8 * (9 - i))) & 255n))
  return { time: Number(value >> 80n), entropy: bytes }
}

describe("ulid", () => {
  test.prop([time, entropy])("is a JobID render accepts and carries its seed exactly", (t, e) => {
    const id = successOf(ulid({ time: t, entropy: e }))
    expect(isJobId(id)).toBe(true)
    expect(decode(id)).toEqual({ time: t, entropy: e })
  })

  test.prop([time, time, entropy, entropy])("sorts by time", (t1, t2, e1, e2) => {
    fc.pre(t1 !== t2)
    const [a, b] = [successOf(ulid({ time: t1, entropy: e1 })), successOf(ulid({ time: t2, entropy: e2 }))]
    expect(a < b).toBe(t1 < t2)
  })

  it("encodes the extremes", () => {
    expect(successOf(ulid({ time: 0, entropy: Array(10).fill(0) }))).toBe("00000000000000000000000000")
    expect(successOf(ulid({ time: maxUlidTime, entropy: Array(10).fill(255) }))).toBe("7ZZZZZZZZZZZZZZZZZZZZZZZZZ")
  })

  it.each([
    [{ time: -1, entropy: Array(10).fill(0) }, `time -1 is not a whole millisecond from 0 to ${maxUlidTime}`],
    [{ time: maxUlidTime + 1, entropy: Array(10).fill(0) }, `time ${maxUlidTime + 1} is not a whole millisecond from 0 to ${maxUlidTime}`],
    [{ time: 1.5, entropy: Array(10).fill(0) }, `time 1.5 is not a whole millisecond from 0 to ${maxUlidTime}`],
    [{ time: 1, entropy: Array(9).fill(0) }, "entropy must be exactly 10 bytes"],
    [{ time: 1, entropy: [...Array(9).fill(0), 256] }, "entropy must be exactly 10 bytes"]
  ])("refuses the seed %j", (seed, reason) => {
    expect(failureOf(ulid(seed)).message).toBe(`cannot make a job id: ${reason}`)
  })
})
