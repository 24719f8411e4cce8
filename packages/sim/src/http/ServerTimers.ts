// The server's timers (late answers, watch timeouts), all cancelled when it closes. Node fires a
// timer set beyond 2^31-1 ms (about 24.8 days) after 1 ms instead, so a longer wait is chained from
// timers within that bound.
import type { Timers } from "./Reply.ts"

/** The longest delay Node's setTimeout honours. */
export const maxTimerMs = 2 ** 31 - 1

/** Timers that wait as long as asked, and a way to cancel every one still pending. */
export const serverTimers = (): { readonly timers: Timers; cancelAll(): void } => {
  const pending = new Set<ReturnType<typeof setTimeout>>()
  const timers: Timers = {
    after: (ms, run) => {
      let current: ReturnType<typeof setTimeout> | undefined
      const arm = (left: number): void => {
        const timer = setTimeout(() => {
          pending.delete(timer)
          if (left > maxTimerMs) arm(left - maxTimerMs)
          else run()
        }, Math.min(left, maxTimerMs))
        current = timer
        pending.add(timer)
      }
      arm(ms)
      return {
        cancel: () => {
          if (current === undefined) return
          clearTimeout(current)
          pending.delete(current)
        }
      }
    }
  }
  return {
    timers,
    cancelAll: () => {
      for (const timer of pending) clearTimeout(timer)
      pending.clear()
    }
  }
}
