// The server's timers wait as long as asked: Node would fire one set beyond 2^31-1 ms after 1 ms.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { maxTimerMs, serverTimers } from "../src/http/ServerTimers.ts"

describe("the server's timers", () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it("fire when due, however long the wait, and not before", () => {
    const { timers } = serverTimers()
    const fired: Array<string> = []
    const wait = 2_147_484 * 1000
    timers.after(wait, () => fired.push("long"))
    timers.after(5, () => fired.push("short"))
    vi.advanceTimersByTime(10)
    expect(fired).toEqual(["short"])
    vi.advanceTimersByTime(maxTimerMs)
    expect(fired).toEqual(["short"])
    vi.advanceTimersByTime(wait - maxTimerMs - 10 - 1)
    expect(fired).toEqual(["short"])
    vi.advanceTimersByTime(1)
    expect(fired).toEqual(["short", "long"])
  })

  it("are cancelled one by one or all at once, even partway through a long wait", () => {
    const { timers, cancelAll } = serverTimers()
    const fired: Array<string> = []
    const one = timers.after(3 * maxTimerMs, () => fired.push("one"))
    timers.after(3 * maxTimerMs, () => fired.push("two"))
    vi.advanceTimersByTime(maxTimerMs + 1)
    one.cancel()
    vi.advanceTimersByTime(maxTimerMs)
    cancelAll()
    vi.advanceTimersByTime(3 * maxTimerMs)
    expect(fired).toEqual([])
    expect(vi.getTimerCount()).toBe(0)
  })
})
