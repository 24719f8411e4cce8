// What a controller learnt when it last looked at an object and had nothing to write: until the object
// or its input (a TrainJob's runtime spec) is replaced, or the clock reaches the moment its status changes
// by itself, looking again would give the same answer. Stored objects are frozen and replaced on every
// write, so "the same object" is identity, and the memo is keyed by the object itself: a replaced
// object's entry is never found again and goes with it, and a client that hands out copies never
// matches, so nothing is skipped.
import type { KubeObject } from "../../Api.ts"

interface Settled {
  readonly input: object | undefined
  readonly dueAt: number
}

/** Objects a controller may skip, each until it changes, its input changes, or its due time comes. */
export class ReconcileMemo {
  private readonly settled = new WeakMap<KubeObject, Settled>()

  /** Until when `object` (read with `input`, when it was settled with one) needs no look, if it needs none at `now`. */
  settledUntil(object: KubeObject, now: number, input: () => object | undefined): number | undefined {
    const entry = this.settled.get(object)
    return entry !== undefined && now < entry.dueAt && (entry.input === undefined || entry.input === input()) ? entry.dueAt : undefined
  }

  /** Records that `object`, read with `input`, needs nothing until `dueAt` (Infinity: until it changes). */
  settle(object: KubeObject, input: object | undefined, dueAt: number): void {
    this.settled.set(object, { input, dueAt })
  }
}
