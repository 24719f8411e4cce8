import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Result } from "effect"
import { expect } from "vitest"
import { authenticate, hashToken, tokenMatches } from "../src/http/Auth.ts"

const token = fc.string({ minLength: 1, maxLength: 64 }).filter((t) => !/\s/.test(t))
const salt = fc.uint8Array({ minLength: 16, maxLength: 32 })

test.prop([token, salt])("a hash matches the token it was made from and never contains it", (t, s) => {
  const hash = hashToken(t, s)
  expect(tokenMatches(t, hash)).toBe(true)
  expect(hash.includes(t) && t.length > 8).toBe(false)
})

test.prop([token, token, salt])("a hash matches no other token", (t, other, s) => {
  fc.pre(t !== other)
  expect(tokenMatches(other, hashToken(t, s))).toBe(false)
})

test.prop([token, salt, salt])("the same token under two salts gives two hashes", (t, s1, s2) => {
  fc.pre(Buffer.compare(Buffer.from(s1), Buffer.from(s2)) !== 0)
  expect(hashToken(t, s1)).not.toBe(hashToken(t, s2))
})

test("authenticate finds the principal of a bearer token, and says why when it cannot", () => {
  const entries = [
    { name: "ann", group: "a", access: "write", tokenHash: hashToken("ann-secret", new Uint8Array(16).fill(1)) },
    { name: "team-b", group: "b", access: "read", tokenHash: hashToken("b-secret", new Uint8Array(16).fill(2)) }
  ] as const
  expect(authenticate(entries, "Bearer b-secret")).toEqual(Result.succeed({ name: "team-b", group: "b", access: "read" }))
  expect(authenticate(entries, "bearer  ann-secret ")).toEqual(Result.succeed({ name: "ann", group: "a", access: "write" }))
  for (const header of [undefined, "Basic YW5uOnB3", "Bearer", "Bearer wrong"]) {
    const result = authenticate(entries, header)
    expect(Result.isFailure(result) && result.failure._tag).toBe("Unauthenticated")
  }
  expect(tokenMatches("x", "sha256:zz:00")).toBe(false)
})
