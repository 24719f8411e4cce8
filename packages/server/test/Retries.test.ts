// How the dispatcher takes a typed error (its fault), and its retry policy from its options.
import { defaultRetryPolicy } from "@dispatch/jobs"
import { expect, test } from "vitest"
import { ErrOutcomeUnknown, ErrRejected, ErrUnreachable } from "@dispatch/effects"
import { defaultBackoff, faultOf, retryPolicyOf } from "../src/dispatch/Retries.ts"

test("the retry policy takes the backoff, and each part of the budget given, else the default's", () => {
  const defaults = { baseMs: 1, maxMs: 2, maxAttempts: 3, maxElapsedMs: 4 }
  expect(retryPolicyOf({ baseMs: 10, maxMs: 20 }, {}, defaults)).toEqual({ baseMs: 10, maxMs: 20, maxAttempts: 3, maxElapsedMs: 4 })
  expect(retryPolicyOf({ baseMs: 10, maxMs: 20 }, { maxAttempts: 7 }, defaults)).toEqual({ baseMs: 10, maxMs: 20, maxAttempts: 7, maxElapsedMs: 4 })
  expect(retryPolicyOf({ baseMs: 10, maxMs: 20 }, { maxElapsedMs: 9 }, defaults)).toEqual({ baseMs: 10, maxMs: 20, maxAttempts: 3, maxElapsedMs: 9 })
})

test("the default backoff is the dispatch machine's own", () => {
  expect(defaultBackoff).toEqual({ baseMs: defaultRetryPolicy.baseMs, maxMs: defaultRetryPolicy.maxMs })
})

test("a fault's reason is the error's tag and every reason, and it has a Retry-After or a landing bound only when the error gave one", () => {
  const fault = faultOf(new ErrRejected({ reasons: ["a", "b"] }), 10, 5)
  expect(fault).toEqual({ verdict: "refused", reason: "ErrRejected: a; b" })
  expect(Object.keys(fault).sort()).toEqual(["reason", "verdict"])
  const unknown = faultOf(new ErrOutcomeUnknown({ reasons: ["lost"] }), 10, 5)
  expect(Object.keys(unknown).sort()).toEqual(["landsBy", "reason", "verdict"])
  const later = faultOf(new ErrUnreachable({ reasons: ["busy"], cause: { kind: "Passing", reason: "ServerError", code: 503, retryAfterMs: 2000 } }), 10, 5)
  expect(later).toEqual({ verdict: "passing", reason: "ErrUnreachable: busy", retryAfterMs: 2000 })
})
