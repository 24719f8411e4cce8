import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { decodeStartRequest, MAX_REASONS, renderStart } from "../src/index.ts"
import { exampleRequest, plainConfig, requestArb, runtimeOf } from "./Generators.ts"

const failure = (input: unknown) => {
  const r = decodeStartRequest(input)
  if (Result.isSuccess(r)) throw new Error("decoded, expected a refusal")
  return r.failure
}

describe("decodeStartRequest", () => {
  it("names the request itself when it is not an object, and a field by its path", () => {
    expect(failure(5).reasons).toEqual(["request: Expected object, got 5"])
    expect(failure({ ...exampleRequest, generation: "x" }).reasons).toEqual(['generation: Expected number, got "x"'])
  })

  test.prop([requestArb()])("decodes every valid request to itself", (request) => {
    const r = decodeStartRequest(JSON.parse(JSON.stringify(request)))
    expect(Result.isSuccess(r) && r.success).toEqual(request)
  })

  test.prop([fc.anything({ withNullPrototype: true, withMap: true, withSet: true })], { numRuns: 300 })("never throws on anything; a non-request is an ErrInvalid refusal with reasons", (input) => {
    const r = decodeStartRequest(input)
    if (Result.isFailure(r)) {
      expect(r.failure.error).toBe("ErrInvalid")
      expect(r.failure.reasons.length).toBeGreaterThan(0)
    }
  })

  test.prop([fc.jsonValue(), fc.jsonValue()], { numRuns: 200 })("decode then render is total on fuzzed JSON in any field", (job, spec) => {
    const r = decodeStartRequest({ job, generation: 1, submission: 1, attempt: 0, spec })
    if (Result.isSuccess(r)) expect(() => renderStart(r.success, plainConfig, runtimeOf())).not.toThrow()
  })

  it("names every wrong field", () => {
    expect(failure({ job: 1, generation: 1.5, submission: "1", spec: { command: "ls", env: {}, nodes: 1, extensions: {}, bogus: true } }).reasons).toEqual([
      "job: Expected string, got 1",
      "generation: Expected an integer, got 1.5",
      'submission: Expected number, got "1"',
      "attempt: required",
      "spec.bogus: unknown field",
      'spec.command: Expected array, got "ls"'
    ])
  })

  it("caps the reasons of abusive input and says how many were left off", () => {
    const r = failure({ ...exampleRequest, spec: { ...exampleRequest.spec, command: Array.from({ length: 100_000 }, () => 0) } })
    expect(r.reasons).toHaveLength(MAX_REASONS + 1)
    expect(r.reasons.at(-1)).toBe(`... and ${100_000 - MAX_REASONS} more`)
  })

  it("keeps 1 MB strings out of the reasons", () => {
    const huge = "x".repeat(1_000_000)
    const r = failure({ ...exampleRequest, job: 7, spec: { ...exampleRequest.spec, env: { [huge]: 1 } } })
    expect(r.reasons.every((reason) => reason.length < 400)).toBe(true)
    const decoded = decodeStartRequest({ ...exampleRequest, job: huge })
    expect(Result.isSuccess(decoded)).toBe(true)
    if (Result.isSuccess(decoded)) {
      const refused = renderStart(decoded.success, plainConfig, runtimeOf())
      expect(Result.isFailure(refused) && refused.failure.reasons[0]!.length).toBeLessThan(400)
    }
  })

  it("keeps a __proto__ env key as an ordinary entry", () => {
    const input = JSON.parse(JSON.stringify(exampleRequest).replace('"env":{', '"env":{"__proto__":"v",')) as unknown
    const r = decodeStartRequest(input)
    expect(Result.isSuccess(r) && Object.keys(r.success.spec.env)).toContain("__proto__")
  })
})
