// Passwords are kept only as scrypt hashes (node:crypto), each with its own salt and its cost parameters, so a
// stolen table yields no password and the cost can be raised later without losing old hashes.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto"

const cost = { N: 16384, r: 8, p: 1 } as const
const keyLength = 32
const format = /^scrypt:(\d+):(\d+):(\d+):([0-9a-f]{32}):([0-9a-f]{64})$/

const derive = (password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> =>
  new Promise((resolve, reject) => scrypt(password.normalize("NFC"), salt, keyLength, { ...options, maxmem: 64 * 1024 * 1024 }, (e, key) => (e === null ? resolve(key) : reject(e))))

/** Hashes a password: `scrypt:N:r:p:<salt hex>:<key hex>`, with a fresh 16-byte salt. */
export const hashPassword = async (password: string, salt: Uint8Array = randomBytes(16)): Promise<string> => {
  const key = await derive(password, Buffer.from(salt), cost)
  return `scrypt:${cost.N}:${cost.r}:${cost.p}:${Buffer.from(salt).toString("hex")}:${key.toString("hex")}`
}

/** True when `password` is the one `hash` was made from; compared in constant time. A malformed hash matches nothing. */
export const passwordMatches = async (password: string, hash: string): Promise<boolean> => {
  const match = format.exec(hash)
  if (match === null) return false
  const [, n = "", r = "", p = "", salt = "", expected = ""] = match
  const key = await derive(password, Buffer.from(salt, "hex"), { N: Number(n), r: Number(r), p: Number(p) })
  return timingSafeEqual(key, Buffer.from(expected, "hex"))
}
