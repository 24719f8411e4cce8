import { Result, Schema } from "effect"

/** What a ULID is made from, injected so that making one stays pure: milliseconds since the epoch and 10 random bytes. */
export interface UlidSeed {
  readonly time: number
  readonly entropy: ReadonlyArray<number>
}

/** The number of random bytes a ULID carries. */
export const ulidEntropyBytes = 10
/** The largest time a ULID can carry: 2^48 - 1 milliseconds since the epoch. */
export const maxUlidTime = 2 ** 48 - 1

const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

/** A ULID seed with a time outside 0..2^48-1 or entropy that is not 10 bytes. */
export class InvalidUlidSeed extends Schema.TaggedError<InvalidUlidSeed>()("InvalidUlidSeed", {
  reason: Schema.String
}) {
  override get message() {
    return `cannot make a job id: ${this.reason}`
  }
  get status() {
    return 500 as const
  }
}

const isByte = (n: number): boolean => Number.isInteger(n) && n >= 0 && n <= 255

/** Encodes a seed as a canonical ULID: 26 upper-case Crockford base32 characters, time first so ids sort by time. */
export const ulid = (seed: UlidSeed): Result.Result<string, InvalidUlidSeed> => {
  if (!Number.isInteger(seed.time) || seed.time < 0 || seed.time > maxUlidTime) {
    return Result.fail(new InvalidUlidSeed({ reason: `time ${seed.time} is not a whole millisecond from 0 to ${maxUlidTime}` }))
  }
  if (seed.entropy.length !== ulidEntropyBytes || !seed.entropy.every(isByte)) {
    return Result.fail(new InvalidUlidSeed({ reason: `entropy must be exactly ${ulidEntropyBytes} bytes` }))
  }
  let value = BigInt(seed.time)
  for (const byte of seed.entropy) value = (value << 8n) | BigInt(byte)
  let text = ""
  for (let i = 0; i < 26; i++) {
    text = (alphabet[Number(value & 31n)] ?? "") + text
    value >>= 5n
  }
  return Result.succeed(text)
}
