// A small seeded generator (mulberry32): the simulator's only source of randomness, so that uids,
// generated names and random fault plans repeat exactly for a given seed. Without one, each simulator
// draws a fresh seed, so two simulators never hand out the same uids.
import { randomInt } from "node:crypto"

/** A seed drawn from the operating system's randomness. */
export const freshSeed = (): number => randomInt(2 ** 32 - 1)

const hexDigits = "0123456789abcdef"

/** A deterministic pseudo-random sequence derived from a seed. */
export class SeededRandom {
  private state: number

  constructor(seed: number) {
    this.state = seed >>> 0
  }

  /** The next number in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [0, bound). */
  int(bound: number): number {
    return Math.floor(this.next() * bound)
  }

  /** A string of `length` characters drawn from `alphabet`. */
  pick(alphabet: string, length: number): string {
    let out = ""
    for (let i = 0; i < length; i++) out += alphabet[this.int(alphabet.length)]
    return out
  }

  /**
   * A version-4 UUID made from this sequence: 32 hex digits drawn, the 13th replaced by the version and
   * the 17th by a variant digit drawn after them. Built as it is drawn, without the arrays a pick, split
   * and join would make: every create draws one.
   */
  uuid(): string {
    let out = ""
    for (let i = 0; i < 16; i++) {
      const digit = hexDigits[this.int(16)] ?? "0"
      if (i === 8 || i === 12) out += "-"
      out += i === 12 ? "4" : digit
    }
    // The 17th digit's draw is spent and its place taken by the variant, drawn after the rest.
    this.int(16)
    let rest = ""
    for (let i = 17; i < 32; i++) {
      if (i === 20) rest += "-"
      rest += hexDigits[this.int(16)] ?? "0"
    }
    return `${out}-${"89ab"[this.int(4)] ?? "8"}${rest}`
  }
}
