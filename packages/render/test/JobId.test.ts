import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { isJobId } from "../src/JobId.ts"
import { jobKeyOfName, trainJobName } from "../src/Names.ts"

describe("isJobId", () => {
  test.prop([fc.ulid()])("accepts every canonical ULID", (id) => {
    expect(isJobId(id)).toBe(true)
  })
  test.prop([fc.ulid(), fc.nat(25), fc.constantFrom("I", "L", "O", "U", "a", "-", " ", "\u0000")])("refuses a ULID with any one character outside upper-case Crockford base32", (id, at, c) => {
    expect(isJobId(id.slice(0, at) + c + id.slice(at + 1))).toBe(false)
  })
  test.prop([fc.ulid(), fc.constantFrom("8", "9", "Z")])("refuses a first character above 7 (the value would overflow 128 bits)", (id, c) => {
    expect(isJobId(c + id.slice(1))).toBe(false)
  })
  test.prop([fc.ulid(), fc.integer({ min: 0, max: 40 }).filter((n) => n !== 26)])("refuses any other length", (id, n) => {
    expect(isJobId(id.repeat(2).slice(0, n))).toBe(false)
  })
})

describe("jobKeyOfName", () => {
  test.prop([fc.ulid(), fc.integer({ min: 0, max: 999_999_999 })])("reads back the job and submission of trainJobName", (job, submission) => {
    expect(jobKeyOfName(trainJobName(job, submission))).toEqual({ job, submission })
  })
  test.prop([fc.string({ maxLength: 40 })])("refuses what trainJobName cannot make", (name) => {
    const key = jobKeyOfName(name)
    if (key !== undefined) expect(trainJobName(key.job, key.submission)).toBe(name)
  })
  it("refuses a name with anything before or after a TrainJob name", () => {
    const name = trainJobName("01J00000000000000000000000", 3)
    expect(jobKeyOfName(name)).toEqual({ job: "01J00000000000000000000000", submission: 3 })
    expect(jobKeyOfName(`x${name}`)).toBeUndefined()
    expect(jobKeyOfName(`${name}x`)).toBeUndefined()
  })
})
