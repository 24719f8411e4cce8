// The reporter's time: the wall clock that stamps records and reads Retry-After dates, and timers. Tests give a
// clock of their own and move its time by hand.

/** A timer that can be cancelled, and told whether it keeps the process alive. */
export interface Timer {
  readonly cancel: () => void
  /** Keeps the process alive until the timer fires (`true`), or not (`false`, the default). */
  readonly hold: (hold: boolean) => void
}

/** Time and timers. */
export interface Clock {
  /** Milliseconds since the epoch. */
  readonly now: () => number
  /** Runs `run` once after `ms` milliseconds; the timer does not keep the process alive unless held. */
  readonly timer: (ms: number, run: () => void) => Timer
}

/** The system's clock: Date.now and Node's timers, unref'd. */
export const systemClock: Clock = {
  now: () => Date.now(),
  timer: (ms, run) => {
    const handle = setTimeout(run, ms)
    handle.unref()
    return {
      cancel: () => clearTimeout(handle),
      hold: (hold) => void (hold ? handle.ref() : handle.unref())
    }
  }
}
