// The `Idempotency-Key` request header (IETF draft "The Idempotency-Key HTTP Header Field"): its value is a
// Structured Field string (`"8e03978e-..."`); a bare token is accepted too, as most clients send one.
import { Result, Schema } from "effect"

/** The header a client names a creating request with, so a retry of it is answered, not run again. */
export const idempotencyHeader = "idempotency-key"

/** The longest key accepted, in characters. */
export const maxIdempotencyKeyLength = 255

/** How long a key is remembered: a retry within 24 hours of the first request gets its answer. */
export const idempotencyWindowMs = 24 * 60 * 60 * 1000

/** The `Idempotency-Key` header is not a non-empty string of printable ASCII of at most 255 characters. */
export class InvalidIdempotencyKey extends Schema.TaggedError<InvalidIdempotencyKey>()("InvalidIdempotencyKey", {
  reason: Schema.String
}) {
  override get message() {
    return `the Idempotency-Key header is not usable: ${this.reason}`
  }
  get status() {
    return 400 as const
  }
}

const sfString = /^"((?:[\x20\x21\x23-\x5B\x5D-\x7E]|\\["\\])*)"$/
const token = /^[\x21-\x7E]+$/

/** The key a header value names: a Structured Field string unquoted, or a bare token as it is. */
export const parseIdempotencyKey = (header: string): Result.Result<string, InvalidIdempotencyKey> => {
  const value = header.trim()
  const quoted = sfString.exec(value)
  const key = quoted !== null ? (quoted[1] ?? "").replace(/\\(["\\])/g, "$1") : value.startsWith('"') ? undefined : token.test(value) ? value : undefined
  if (key === undefined) return Result.fail(new InvalidIdempotencyKey({ reason: "expected a quoted string or a token of printable ASCII" }))
  if (key === "") return Result.fail(new InvalidIdempotencyKey({ reason: "the key is empty" }))
  if (key.length > maxIdempotencyKeyLength) return Result.fail(new InvalidIdempotencyKey({ reason: `the key is longer than ${maxIdempotencyKeyLength} characters` }))
  return Result.succeed(key)
}
