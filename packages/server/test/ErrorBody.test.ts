import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { expect } from "vitest"
import { errorBody, refusalStatus } from "../src/wire/ErrorBody.ts"
import { AlreadyExists, InvalidRequest, refusal, ResourceNotFound, type ServiceProblem } from "../src/wire/ServiceProblem.ts"

const problem: fc.Arbitrary<ServiceProblem> = fc.oneof(
  fc.record({ resource: fc.string(), id: fc.string() }).map((f) => new ResourceNotFound(f)),
  fc.record({ resource: fc.string(), field: fc.string(), value: fc.string() }).map((f) => new AlreadyExists(f)),
  fc.record({ part: fc.constantFrom("body" as const, "path" as const, "query" as const), path: fc.string(), detail: fc.string() }).map((f) => new InvalidRequest(f))
)

test.prop([problem, fc.array(problem, { maxLength: 5 })])("the error body names the first problem, carries every one with its fields, and the first decides the status", (first, rest) => {
  const refused = refusal(first, ...rest)
  const body = errorBody(refused)
  expect(body.error).toBe(first._tag)
  expect(refusalStatus(refused)).toBe(first.status)
  expect(body.detail.map((d) => d["error"])).toEqual([first, ...rest].map((p) => p._tag))
  expect(body.detail.map((d) => d["message"])).toEqual([first, ...rest].map((p) => p.message))
  expect(body.message).toBe([first, ...rest].map((p) => p.message).join("; "))
  expect(JSON.parse(JSON.stringify(body))).toEqual(body)
})
