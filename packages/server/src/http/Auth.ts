import { createHash, timingSafeEqual } from "node:crypto"
import { Result, Schema } from "effect"
import { Unauthenticated } from "../wire/ServiceProblem.ts"

/** Who a credential stands for: a user or a whole group's token, the group it sees, and whether it may write. */
export const Credential = Schema.Struct({
  name: Schema.NonEmptyString,
  group: Schema.NonEmptyString,
  access: Schema.Literals(["write", "read"])
})
/** Who a credential stands for. */
export type Credential = typeof Credential.Type

/** Who a request acts as: its credential, the integer id of its group, and its user's id when a user logged in. */
export interface Principal extends Credential {
  readonly groupId: number
  readonly userId?: number
  /** The session token a logged-in user's request carried (so logout can end it). */
  readonly sessionToken?: string
}

const hashFormat = /^sha256:([0-9a-f]{32,}):([0-9a-f]{64})$/

/** A configured token: the principal it stands for and the token's salted hash (`sha256:<salt>:<digest>`). */
export const TokenEntry = Schema.Struct({
  ...Credential.fields,
  tokenHash: Schema.String.check(Schema.isPattern(hashFormat))
})
/** A configured token. */
export type TokenEntry = typeof TokenEntry.Type

// The tokens are long random strings, not passwords, so a salted SHA-256 is enough to keep them unreadable at rest.
const digest = (saltHex: string, token: string): Buffer => createHash("sha256").update(saltHex).update(":").update(token).digest()

/** Hashes a token with a salt (at least 16 random bytes, given by the caller) for the token configuration. */
export const hashToken = (token: string, salt: Uint8Array): string => {
  const saltHex = Buffer.from(salt).toString("hex")
  return `sha256:${saltHex}:${digest(saltHex, token).toString("hex")}`
}

/** True when `token` is the one `tokenHash` was made from; compared in constant time. */
export const tokenMatches = (token: string, tokenHash: string): boolean => {
  const match = hashFormat.exec(tokenHash)
  if (match === null) return false
  const [, saltHex = "", expected = ""] = match
  return timingSafeEqual(digest(saltHex, token), Buffer.from(expected, "hex"))
}

const bearer = /^Bearer\s+(\S+)\s*$/i

/** The principal an Authorization header stands for, or why it stands for none. */
export const authenticate = (tokens: ReadonlyArray<TokenEntry>, authorization: string | undefined): Result.Result<Credential, Unauthenticated> => {
  if (authorization === undefined) return Result.fail(new Unauthenticated({ reason: "no Authorization header; send Authorization: Bearer <token>" }))
  const match = bearer.exec(authorization)
  if (match === null) return Result.fail(new Unauthenticated({ reason: "the Authorization header is not Bearer <token>" }))
  const token = match[1] ?? ""
  const entry = tokens.find((t) => tokenMatches(token, t.tokenHash))
  return entry === undefined
    ? Result.fail(new Unauthenticated({ reason: "the bearer token is not a configured token" }))
    : Result.succeed({ name: entry.name, group: entry.group, access: entry.access })
}
