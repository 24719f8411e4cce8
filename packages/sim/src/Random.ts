// A small seeded generator (mulberry32): the simulator's only source of randomness, so that uids,
// generated names and random fault plans repeat exactly for a given seed. Without one, each simulator
// draws a fresh seed, so two simulators never hand out the same uids.
import { randomInt } from "node:crypto"

/** A seed drawn from the operating system's randomness. */
export const freshSeed = (): number => randomInt(2 ** 32 - 1)

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

  /** A version-4 UUID made from this sequence. */
  uuid(): string {
    const hex = this.pick("0123456789abcdef", 32).split("")
    hex[12] = "4"
    hex[16] = "89ab"[this.int(4)] ?? "8"
    const h = hex.join("")
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
  }
}
