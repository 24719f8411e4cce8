// What a controller learnt when it last looked at an object and had nothing to write: until the object
// or its inputs (a TrainJob's runtime spec, a JobSet's Jobs, a Job's pods) are replaced, or the clock
// reaches the moment its status changes by itself, looking again would give the same answer. Stored
// objects are frozen and replaced on every write, so "the same object" is identity, and the memo is keyed
// by the object itself: a replaced object's entry is never found again and goes with it, and a client
// that hands out copies never matches, so nothing is skipped.
import type { KubeObject } from "../../Api.ts"

/** What a look read besides the object: one stored part, or several (undefined where one was absent). */
export type MemoInputs = object | ReadonlyArray<object | undefined>

interface Settled {
  readonly input: MemoInputs | undefined
  readonly dueAt: number
}

// Identity, element by element for a list of inputs.
const sameInputs = (a: MemoInputs | undefined, b: MemoInputs | undefined): boolean => {
  if (a === b) return true
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** Objects a controller may skip, each until it changes, its inputs change, or its due time comes. */
export class ReconcileMemo {
  private readonly settled = new WeakMap<KubeObject, Settled>()

  /** Until when `object` (read with `input`, when it was settled with one) needs no look, if it needs none at `now`. */
  settledUntil(object: KubeObject, now: number, input: () => MemoInputs | undefined): number | undefined {
    const entry = this.settled.get(object)
    return entry !== undefined && now < entry.dueAt && (entry.input === undefined || sameInputs(entry.input, input())) ? entry.dueAt : undefined
  }

  /** Records that `object`, read with `input`, needs nothing until `dueAt` (Infinity: until it changes). */
  settle(object: KubeObject, input: MemoInputs | undefined, dueAt: number): void {
    this.settled.set(object, { input, dueAt })
  }
}
