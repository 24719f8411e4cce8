// The dispatcher's retry policy from its options: the backoff given, and the dispatch machine's budget unless given.
import { defaultRetryPolicy } from "@dispatch/jobs"
import { expect, test } from "vitest"
import { defaultBackoff, retryPolicyOf } from "../src/ErrorAction.ts"

test("the retry policy takes the backoff, and each part of the budget given, else the default's", () => {
  const defaults = { baseMs: 1, maxMs: 2, maxAttempts: 3, maxElapsedMs: 4 }
  expect(retryPolicyOf({ baseMs: 10, maxMs: 20 }, {}, defaults)).toEqual({ baseMs: 10, maxMs: 20, maxAttempts: 3, maxElapsedMs: 4 })
  expect(retryPolicyOf({ baseMs: 10, maxMs: 20 }, { maxAttempts: 7 }, defaults)).toEqual({ baseMs: 10, maxMs: 20, maxAttempts: 7, maxElapsedMs: 4 })
  expect(retryPolicyOf({ baseMs: 10, maxMs: 20 }, { maxElapsedMs: 9 }, defaults)).toEqual({ baseMs: 10, maxMs: 20, maxAttempts: 3, maxElapsedMs: 9 })
})

test("the default backoff is the dispatch machine's own", () => {
  expect(defaultBackoff).toEqual({ baseMs: defaultRetryPolicy.baseMs, maxMs: defaultRetryPolicy.maxMs })
})
