// Passwords are kept only as scrypt hashes (node:crypto), each with its own salt and its cost parameters, so a
// stolen table yields no password and the cost can be raised later without losing old hashes.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto"
import { Effect } from "effect"

const cost = { N: 16384, r: 8, p: 1 } as const
const keyLength = 32
const format = /^scrypt:(\d+):(\d+):(\d+):([0-9a-f]{32}):([0-9a-f]{64})$/

// scrypt fails only on parameters this module chose or a stored hash carries within its format's bounds: a defect.
const derive = (password: string, salt: Buffer, options: ScryptOptions): Effect.Effect<Buffer> =>
  Effect.callback<Buffer>((resume) =>
    scrypt(password.normalize("NFC"), salt, keyLength, { ...options, maxmem: 64 * 1024 * 1024 }, (e, key) => resume(e === null ? Effect.succeed(key) : Effect.die(e)))
  )

/** Hashes a password: `scrypt:N:r:p:<salt hex>:<key hex>`, with a fresh 16-byte salt. */
export const hashPassword = (password: string, salt: Uint8Array = randomBytes(16)): Effect.Effect<string> =>
  Effect.map(derive(password, Buffer.from(salt), cost), (key) => `scrypt:${cost.N}:${cost.r}:${cost.p}:${Buffer.from(salt).toString("hex")}:${key.toString("hex")}`)

/** True when `password` is the one `hash` was made from; compared in constant time. A malformed hash matches nothing. */
export const passwordMatches = (password: string, hash: string): Effect.Effect<boolean> => {
  const match = format.exec(hash)
  if (match === null) return Effect.succeed(false)
  const [, n = "", r = "", p = "", salt = "", expected = ""] = match
  return Effect.map(derive(password, Buffer.from(salt, "hex"), { N: Number(n), r: Number(r), p: Number(p) }), (key) => timingSafeEqual(key, Buffer.from(expected, "hex")))
}
