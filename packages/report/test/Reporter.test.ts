// The reporter on a clock and a network of the test's own: time moves only when the test moves it, and each post
// is answered as the test says. What it sends, when, under which key, and what it tells its caller.
import { describe, expect, it } from "vitest"
import type { Clock, Timer } from "../src/Clock.ts"
import { Reporter, type ReporterRuntime } from "../src/Reporter.ts"
import type { ReporterOptions } from "../src/Settings.ts"
import type { Answer, Transport } from "../src/Transport.ts"

const start = Date.UTC(2026, 11, 7, 12, 0, 0)

interface Pending {
  readonly due: number
  readonly order: number
  readonly run: () => void
  cancelled: boolean
  held: boolean
}

/** A clock whose time moves only by `advance`; each timer fires in due order, promise chains settling in between. */
class FakeClock implements Clock {
  time = start
  private order = 0
  readonly pending: Array<Pending> = []
  readonly now = (): number => this.time
  readonly timer = (ms: number, run: () => void): Timer => {
    const entry: Pending = { due: this.time + Math.max(0, ms), order: this.order++, run, cancelled: false, held: false }
    this.pending.push(entry)
    return { cancel: () => void (entry.cancelled = true), hold: (hold) => void (entry.held = hold) }
  }
  /** Timers still to fire that keep the process alive. */
  held(): number {
    return this.pending.filter((t) => !t.cancelled && t.held).length
  }
  async advance(ms: number): Promise<void> {
    const end = this.time + ms
    for (;;) {
      await settle()
      const next = this.pending
        .filter((t) => !t.cancelled && t.due <= end)
        .sort((a, b) => a.due - b.due || a.order - b.order)[0]
      if (next === undefined) break
      this.pending.splice(this.pending.indexOf(next), 1)
      this.time = next.due
      next.run()
    }
    this.time = end
    await settle()
  }
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

interface Post {
  readonly body: { metrics: Array<Record<string, unknown>>; logs: Array<Record<string, unknown>>; dropped: { metrics: number; logs: number } }
  readonly key: string
  readonly at: number
}

/** A network answering each post as `answer` says (200 unless told), noting each post and whether the sender holds. */
const fakeNetwork = (clock: FakeClock, answer: (n: number) => Answer | Promise<Answer> = () => ({ status: 200, error: "" })) => {
  const posts: Array<Post> = []
  const holds: Array<boolean> = []
  let closed = 0
  const transport: Transport = {
    post: (body, key) => {
      posts.push({ body: JSON.parse(body) as Post["body"], key, at: clock.time })
      return Promise.resolve(answer(posts.length - 1))
    },
    hold: (hold) => void holds.push(hold),
    close: () => void closed++
  }
  return { posts, holds, transport, closed: () => closed }
}

const job = { url: "http://service.test/api/v1", jobId: 7, token: "djr1.7.x" }

const make = (options: ReporterOptions = {}, answer?: (n: number) => Answer | Promise<Answer>, runtime: ReporterRuntime = {}) => {
  const clock = new FakeClock()
  const network = fakeNetwork(clock, answer)
  const said: Array<string> = []
  const reporter = new Reporter(
    { ...job, env: {}, ...options },
    { clock, transport: () => network.transport, random: () => 0.5, stderr: (line) => void said.push(line), exitFlush: false, ...runtime }
  )
  return { clock, network, said, reporter }
}

const steps = (posts: ReadonlyArray<Post>) => posts.flatMap((p) => p.body.metrics.map((m) => m["step"]))

describe("Reporter", () => {
  it("returns from each call at once, and sends what waits every interval, each record with the time of its call", async () => {
    const { clock, network, reporter } = make({ intervalMs: 1000 })
    for (let step = 0; step < 10; step++) {
      expect(reporter.logMetric("loss", 1 / (step + 1), step)).toBeUndefined()
      clock.time += 1
    }
    expect(reporter.log("INFO", "epoch done")).toBeUndefined()
    expect(reporter.logMetrics({ acc: 0.5, lr: 0.1 }, 9)).toBeUndefined()
    await clock.advance(999 - 10)
    expect(network.posts).toHaveLength(0)
    await clock.advance(1)
    expect(network.posts).toHaveLength(1)
    const body = network.posts[0]?.body
    expect(body?.metrics.map((m) => [m["name"], m["step"], m["timestamp"]])).toEqual([
      ...Array.from({ length: 10 }, (_, i) => ["loss", i, new Date(start + i).toISOString()]),
      ["acc", 9, new Date(start + 10).toISOString()],
      ["lr", 9, new Date(start + 10).toISOString()]
    ])
    expect(body?.logs).toEqual([{ severity: "INFO", loggerName: "train", message: "epoch done", timestamp: new Date(start + 10).toISOString() }])
    expect(body?.dropped).toEqual({ metrics: 0, logs: 0 })
    expect(reporter.stats()).toEqual({ sent: { metrics: 12, logs: 1, batches: 1 }, dropped: { metrics: 0, logs: 0 }, refused: { metrics: 0, logs: 0 }, buffered: 0, retries: 0, stopped: null })
    await clock.advance(5000)
    expect(network.posts).toHaveLength(1)
  })

  it("sends a full batch on the next turn of the event loop, not in the call, and keeps sending while a batch's worth waits", async () => {
    const { clock, network, reporter } = make({ intervalMs: 60_000, batchSize: 100 })
    for (let step = 0; step < 250; step++) reporter.logMetric("loss", 1, step)
    expect(network.posts).toHaveLength(0)
    await clock.advance(0)
    expect(network.posts.map((p) => p.body.metrics.length)).toEqual([100, 100])
    await clock.advance(60_000)
    expect(network.posts.map((p) => p.body.metrics.length)).toEqual([100, 100, 50])
    expect(steps(network.posts)).toEqual(Array.from({ length: 250 }, (_, i) => i))
    expect(new Set(network.posts.map((p) => p.key)).size).toBe(3)
  })

  it("splits batches by bytes too", async () => {
    const { clock, network, reporter } = make({ batchBytes: 4096, intervalMs: 10 })
    for (let i = 0; i < 10; i++) reporter.log("INFO", "x".repeat(1000))
    await clock.advance(10)
    expect(network.posts.map((p) => p.body.logs.length)).toEqual([3, 3, 3, 1])
  })

  it("retries a batch under its key after a backoff with jitter that doubles, never sooner than Retry-After", async () => {
    const answers: Array<Answer> = [{ status: 503, retryAfter: "7", error: "" }, { status: 500, error: "" }, { error: "ECONNRESET" }, { status: 429, error: "" }, { status: 409, error: "IdempotencyKeyInUse: busy" }]
    const { clock, network, reporter } = make({ intervalMs: 100, backoffMs: 1000, maxBackoffMs: 30_000 }, (n) => answers[n] ?? { status: 200, error: "" })
    reporter.logMetric("loss", 1, 0)
    await clock.advance(100)
    await clock.advance(60_000)
    expect(network.posts).toHaveLength(6)
    expect(new Set(network.posts.map((p) => p.key)).size).toBe(1)
    const waits = network.posts.slice(1).map((p, i) => p.at - (network.posts[i]?.at ?? 0))
    // Half (the jitter the test's random gives) of 1, 2, 4, 8, 16 s; the first raised to Retry-After's 7 s.
    expect(waits).toEqual([7000, 1000, 2000, 4000, 8000])
    expect(reporter.stats()).toMatchObject({ sent: { metrics: 1, batches: 1 }, retries: 5 })
  })

  it("stops at a permanent refusal, says so once, clears what waits, and records nothing after", async () => {
    const { clock, network, reporter, said } = make({ intervalMs: 100, batchSize: 5 }, () => ({ status: 401, error: "Unauthenticated: no such token" }))
    for (let step = 0; step < 20; step++) reporter.logMetric("loss", 1, step)
    await clock.advance(1000)
    expect(network.posts).toHaveLength(1)
    expect(said).toEqual(["@dispatch/report: stopped sending: the service answered 401: Unauthenticated: no such token; the job's reports are no longer taken\n"])
    expect(reporter.enabled).toBe(false)
    reporter.logMetric("loss", 1, 21)
    await clock.advance(10_000)
    expect(network.posts).toHaveLength(1)
    expect(reporter.stats()).toMatchObject({ buffered: 0, stopped: "the service answered 401 (Unauthenticated: no such token)" })
    expect(await reporter.flush()).toBe(true)
  })

  it("drops a batch another refusal answers, counting it, says so once, and tells its drops with the next batch", async () => {
    const { clock, network, reporter, said } = make({ intervalMs: 100, maxBuffer: 2 }, (n) => (n === 0 ? { status: 422, error: "IdempotencyKeyReused: x" } : { status: 200, error: "" }))
    for (let step = 0; step < 5; step++) reporter.logMetric("loss", 1, step)
    reporter.log("INFO", "a")
    expect(reporter.stats().dropped).toEqual({ metrics: 4, logs: 0 })
    await clock.advance(100)
    expect(network.posts[0]?.body.dropped).toEqual({ metrics: 4, logs: 0 })
    expect(reporter.stats()).toMatchObject({ refused: { metrics: 1, logs: 1 }, dropped: { metrics: 4, logs: 0 } })
    reporter.logMetric("loss", 1, 9)
    await clock.advance(100)
    expect(network.posts[1]?.body).toMatchObject({ metrics: [{ step: 9 }], dropped: { metrics: 4, logs: 0 } })
    expect(reporter.stats()).toMatchObject({ dropped: { metrics: 0, logs: 0 }, sent: { metrics: 1 } })
    expect(said.filter((l) => l.includes("was refused"))).toHaveLength(1)
    expect(network.posts[0]?.key).not.toBe(network.posts[1]?.key)
  })

  it("flushes what waits at once and answers true; false when the time runs out first, what is left still buffered", async () => {
    let down = true
    const { clock, network, reporter } = make({ intervalMs: 60_000, backoffMs: 100, maxBackoffMs: 100 }, () => (down ? { status: 503, error: "" } : { status: 200, error: "" }))
    reporter.logMetric("loss", 1, 0)
    const failed = reporter.flush(1000)
    await clock.advance(1000)
    expect(await failed).toBe(false)
    // While it flushed, what the sender waited on kept the process alive; after, nothing does.
    expect(network.holds).toEqual([true, false])
    expect(clock.held()).toBe(0)
    down = false
    const done = reporter.flush(1000)
    await clock.advance(100)
    expect(await done).toBe(true)
    expect(reporter.stats().sent.metrics).toBe(1)
    expect(network.posts.length).toBeGreaterThan(2)
  })

  it("closes: flushes, then records nothing and stops its timers; a batch that still fails is given up after three posts", async () => {
    const { clock, network, reporter } = make({ intervalMs: 100, backoffMs: 10, maxBackoffMs: 10 }, () => ({ status: 503, error: "" }))
    reporter.logMetric("loss", 1, 0)
    const closed = reporter.close(50)
    await clock.advance(50)
    expect(await closed).toBe(false)
    const posts = network.posts.length
    expect(posts).toBeGreaterThanOrEqual(3)
    await clock.advance(10_000)
    // Closed, the batch that still failed was given up at its next post; nothing else was sent.
    expect(network.posts.length - posts).toBeLessThanOrEqual(1)
    const after = network.posts.length
    reporter.logMetric("loss", 1, 1)
    await clock.advance(10_000)
    expect(network.posts.length).toBe(after)
    expect(network.closed()).toBe(1)
    expect(clock.pending.filter((t) => !t.cancelled)).toEqual([])
  })

  it("at exit flushes once, bounded by its exit timeout, and says what was left", async () => {
    const { clock, reporter, said } = make({ intervalMs: 60_000, exitTimeoutMs: 2000, backoffMs: 100, maxBackoffMs: 100 }, () => ({ status: 503, error: "" }))
    for (let step = 0; step < 3; step++) reporter.logMetric("loss", 1, step)
    reporter.exiting()
    reporter.exiting()
    expect(clock.held()).toBeGreaterThan(0)
    await clock.advance(2000)
    expect(said).toEqual(["@dispatch/report: at exit, after 2.0 s, 0 buffered records and the batch being sent were left unsent\n"])
    expect(reporter.enabled).toBe(false)
    expect(clock.held()).toBe(0)
  })

  it("never throws into the caller: bad names, steps, values and levels are refused and said once each; a broken stderr is ignored", async () => {
    const { clock, network, reporter, said } = make({ intervalMs: 10 })
    const untyped = reporter as unknown as { logMetric: (...a: Array<unknown>) => void; logMetrics: (...a: Array<unknown>) => void; log: (...a: Array<unknown>) => void }
    expect(() => {
      untyped.logMetric("9bad", 1)
      untyped.logMetric("9bad", 2)
      untyped.logMetric(Symbol("s"), 1)
      untyped.logMetric("loss", "x")
      untyped.logMetric("loss", { valueOf: () => { throw new Error("boom") } })
      untyped.logMetric("acc", 1, -1)
      untyped.logMetric("acc", 1, "3")
      untyped.logMetrics(null)
      untyped.logMetrics({ ok: 1, "bad name": 2 }, 4)
      untyped.log("LOUD", "x")
      untyped.log("INFO", { toString: () => { throw new Error("boom") } })
      untyped.log("INFO", 42)
    }).not.toThrow()
    await clock.advance(10)
    expect(network.posts.flatMap((p) => p.body.metrics.map((m) => [m["name"], m["step"]]))).toEqual([["ok", 4]])
    expect(network.posts.flatMap((p) => p.body.logs.map((l) => l["message"]))).toEqual(["42"])
    expect(said.filter((l) => l.includes('metric name "9bad"'))).toHaveLength(1)
    expect(said.some((l) => l.includes('value "x" is not a number'))).toBe(true)
    expect(said.some((l) => l.includes('metric "acc": step -1 is not a whole number from 0'))).toBe(true)
    // Said once for each metric, whatever is wrong with it next.
    expect(said.filter((l) => l.includes('metric "acc"'))).toHaveLength(1)
    expect(said.some((l) => l.includes('level "LOUD"'))).toBe(true)
    expect(said.some((l) => l.includes("not sent: a call failed: Error: boom"))).toBe(true)
    expect(reporter.stats().refused).toEqual({ metrics: 9, logs: 2 })
    const broken = make({}, undefined, { stderr: () => { throw new Error("stderr closed") } })
    expect(() => broken.reporter.logMetric("9bad", 1)).not.toThrow()
  })

  it("a sender that fails stops sending, saying why, and the calls go on unharmed", async () => {
    const { clock, reporter, said } = make({ intervalMs: 10 }, () => {
      throw new Error("the network broke")
    })
    reporter.logMetric("loss", 1, 0)
    await clock.advance(10)
    expect(reporter.stats().stopped).toContain("the network broke")
    expect(said).toEqual([expect.stringContaining("the network broke")])
    expect(() => reporter.logMetric("loss", 1, 1)).not.toThrow()
  })

  it("is off outside a job, saying so once; quiet on a rank that does not report", async () => {
    const said: Array<string> = []
    const off = new Reporter({ env: {} }, { stderr: (l) => void said.push(l), exitFlush: false })
    off.logMetric("loss", 1)
    expect(off.enabled).toBe(false)
    expect(await off.flush()).toBe(true)
    expect(await off.close()).toBe(true)
    expect(said).toEqual(["@dispatch/report: DIOPTRA_SERVICE_URL, DIOPTRA_JOB_ID and DIOPTRA_REPORT_TOKEN are not all set; reporting is off\n"])
    const rank = new Reporter({ ...job, env: { RANK: "3" } }, { stderr: (l) => void said.push(l), exitFlush: false })
    expect([rank.enabled, rank.rank, said.length]).toEqual([false, 3, 1])
  })
})

/** An answer the test gives when it chooses. */
const deferred = () => {
  let give: (answer: Answer) => void = () => undefined
  const answer = new Promise<Answer>((resolve) => (give = resolve))
  return { answer, give }
}

describe("Reporter, in detail", () => {
  it("counts a dropped log record as a log record", () => {
    const { reporter } = make({ maxBuffer: 1 })
    reporter.log("INFO", "a")
    reporter.log("INFO", "b")
    reporter.logMetric("loss", 1, 0)
    expect(reporter.stats().dropped).toEqual({ metrics: 0, logs: 2 })
  })

  it("says each refusal in words, and names what it cannot print", () => {
    const { reporter, said } = make()
    const untyped = reporter as unknown as { logMetric: (...a: Array<unknown>) => void; logMetrics: (...a: Array<unknown>) => void }
    untyped.logMetric("loss", "x")
    untyped.logMetrics(null)
    untyped.logMetrics(5)
    reporter.log("LOUD", "x")
    untyped.logMetric("acc", 1, -1n)
    untyped.logMetric({ toString: () => { throw new Error("no") } }, 1)
    expect(said).toEqual([
      '@dispatch/report: not sent: metric "loss": value "x" is not a number\n',
      "@dispatch/report: not sent: logMetrics takes an object of names to numbers, not null\n",
      "@dispatch/report: not sent: logMetrics takes an object of names to numbers, not 5\n",
      '@dispatch/report: not sent: log: level "LOUD" is not one of DEBUG, INFO, WARNING, ERROR, CRITICAL\n',
      '@dispatch/report: not sent: metric "acc": step -1n is not a whole number from 0\n',
      '@dispatch/report: not sent: metric name (unprintable) must be one letter, or a letter or "_" followed by letters, digits or "_" (at most 255)\n'
    ])
  })

  it("counts a call that fails inside as refused: a clock that throws, an object whose keys cannot be read", async () => {
    const clock = new FakeClock()
    const network = fakeNetwork(clock)
    let broken = false
    let noTimers = false
    const said: Array<string> = []
    const reporter = new Reporter(
      { ...job, env: {} },
      {
        clock: {
          now: () => (broken ? (() => { throw new Error("no clock") })() : clock.now()),
          timer: (ms, run) => (noTimers ? (() => { throw new Error("no timers") })() : clock.timer(ms, run))
        },
        transport: () => network.transport,
        stderr: (l) => void said.push(l),
        exitFlush: false
      }
    )
    reporter.log("INFO", "kept")
    reporter.logMetrics(new Proxy({}, { ownKeys: () => { throw new Error("no keys") } }))
    broken = true
    reporter.logMetric("loss", 1, 0)
    reporter.log("INFO", "x")
    expect(reporter.stats().refused).toEqual({ metrics: 1, logs: 1 })
    expect(said).toEqual(["@dispatch/report: not sent: a call failed: Error: no keys\n"])
    // A flush that cannot set its deadline answers false at once, and rejects nothing.
    noTimers = true
    expect(await reporter.flush()).toBe(false)
  })

  it("logs under the logger name a call gives, else its own", async () => {
    const { clock, network, reporter } = make({ intervalMs: 10, loggerName: "trainer" })
    reporter.log("INFO", "a", "data")
    reporter.log("INFO", "b")
    await clock.advance(10)
    expect(network.posts[0]?.body.logs.map((l) => l["loggerName"])).toEqual(["data", "trainer"])
  })

  it("records nothing once closed, and closes its connection once however often it is closed", async () => {
    const { clock, network, reporter } = make({ intervalMs: 10 })
    expect(await reporter.close()).toBe(true)
    reporter.log("INFO", "late")
    reporter.logMetrics({ late: 1 })
    expect(reporter.stats().buffered).toBe(0)
    expect(await reporter.close()).toBe(true)
    reporter.exiting()
    await clock.advance(100)
    expect(network.closed()).toBe(1)
    expect(network.posts).toHaveLength(0)
  })

  it("at exit says nothing when everything was sent, and closes once", async () => {
    const { clock, network, reporter, said } = make({ intervalMs: 60_000 })
    reporter.logMetric("loss", 1, 0)
    reporter.exiting()
    reporter.exiting()
    await clock.advance(0)
    expect(network.posts).toHaveLength(1)
    expect(said).toEqual([])
    expect(network.closed()).toBe(1)
  })

  it("sends a batch's worth at once, exactly at the batch size, each time it fills again", async () => {
    const { clock, network, reporter } = make({ intervalMs: 60_000, batchSize: 100 })
    for (let step = 0; step < 100; step++) reporter.logMetric("loss", 1, step)
    await clock.advance(0)
    expect(network.posts).toHaveLength(1)
    for (let step = 100; step < 300; step++) reporter.logMetric("loss", 1, step)
    await clock.advance(0)
    // Exactly a batch's worth left after the second: it goes at once too.
    expect(network.posts.map((p) => p.body.metrics.length)).toEqual([100, 100, 100])
  })

  it("a flush sends everything at once, not a batch per interval, and an empty flush holds nothing", async () => {
    const { clock, network, reporter } = make({ intervalMs: 60_000, batchSize: 100 })
    expect(await reporter.flush()).toBe(true)
    expect(network.holds).toEqual([])
    for (let step = 0; step < 150; step++) reporter.logMetric("loss", 1, step)
    const done = reporter.flush(1000)
    await clock.advance(0)
    expect(await done).toBe(true)
    expect(network.posts.map((p) => p.body.metrics.length)).toEqual([100, 50])
  })

  it("waits for the batch in flight: a flush until its answer, a second batch until the first is answered, the connection's close too", async () => {
    const first = deferred()
    const { clock, network, reporter } = make({ intervalMs: 10 }, (n) => (n === 0 ? first.answer : { status: 200, error: "" }))
    reporter.logMetric("loss", 1, 0)
    await clock.advance(10)
    expect(network.posts).toHaveLength(1)
    let flushed: boolean | undefined
    void reporter.flush(60_000).then((done) => (flushed = done))
    reporter.logMetric("loss", 1, 1)
    await clock.advance(1000)
    // One request at a time: the second batch waits for the first's answer.
    expect(network.posts).toHaveLength(1)
    expect(flushed).toBeUndefined()
    first.give({ status: 200, error: "" })
    await clock.advance(0)
    expect(flushed).toBe(true)
    expect(steps(network.posts)).toEqual([0, 1])
    const last = deferred()
    const slow = make({ intervalMs: 10 }, () => last.answer)
    slow.reporter.logMetric("loss", 1, 0)
    await slow.clock.advance(10)
    const closing = slow.reporter.close(0)
    await slow.clock.advance(0)
    expect(await closing).toBe(false)
    expect(slow.network.closed()).toBe(0)
    last.give({ status: 200, error: "" })
    await slow.clock.advance(0)
    expect(slow.network.closed()).toBe(1)
  })

  it("tells drops alone when a refused batch carried them and nothing else waits", async () => {
    const { clock, network, reporter } = make({ intervalMs: 10, maxBuffer: 1 }, (n) => (n === 0 ? { status: 400, error: "InvalidRecord: x" } : { status: 200, error: "" }))
    reporter.logMetric("loss", 1, 0)
    reporter.log("INFO", "a")
    reporter.logMetric("loss", 1, 1)
    await clock.advance(10)
    expect(network.posts[0]?.body.dropped).toEqual({ metrics: 1, logs: 1 })
    await clock.advance(10)
    expect(network.posts[1]?.body).toEqual({ metrics: [], logs: [], dropped: { metrics: 1, logs: 1 } })
    expect(reporter.stats().dropped).toEqual({ metrics: 0, logs: 0 })
  })

  it("refuses a 3xx or a 409 other than IdempotencyKeyInUse without retrying, saying how many records", async () => {
    for (const answer of [{ status: 300, error: ": " }, { status: 409, error: "Conflict: the job is gone" }]) {
      const { clock, network, reporter, said } = make({ intervalMs: 10 }, () => answer)
      reporter.logMetric("loss", 1, 0)
      reporter.log("INFO", "a")
      await clock.advance(1000)
      expect(network.posts).toHaveLength(1)
      expect(said).toEqual([`@dispatch/report: a batch of 2 records was refused (${answer.status}: ${answer.error}); it is not sent again\n`])
      expect(reporter.stats()).toMatchObject({ sent: { metrics: 0 }, refused: { metrics: 1, logs: 1 }, retries: 0 })
    }
  })

  it("closed, gives a failing batch up after exactly three posts, its waits held only while the flush lasts", async () => {
    const { clock, network, reporter } = make({ intervalMs: 60_000, backoffMs: 10, maxBackoffMs: 10 }, () => ({ status: 503, error: "" }))
    reporter.logMetric("loss", 1, 0)
    const flushing = reporter.flush(1000)
    await clock.advance(0)
    // The flush's deadline and the retry's wait keep the process alive.
    expect(clock.held()).toBe(2)
    await clock.advance(1000)
    expect(await flushing).toBe(false)
    expect(clock.held()).toBe(0)
    const again = make({ intervalMs: 60_000, backoffMs: 10, maxBackoffMs: 10 }, () => ({ status: 503, error: "" }))
    again.reporter.logMetric("loss", 1, 0)
    const closing = again.reporter.close(0)
    await again.clock.advance(0)
    expect(await closing).toBe(false)
    await again.clock.advance(10_000)
    expect(again.network.posts).toHaveLength(3)
    expect(network.posts.length).toBeGreaterThan(3)
  })

  it("flushes at exit through the process's beforeExit, and writes to stderr unless told otherwise", async () => {
    const written: Array<string> = []
    const write = process.stderr.write
    process.stderr.write = ((line: string) => written.push(line) > 0) as typeof process.stderr.write
    try {
      new Reporter({ env: {} })
    } finally {
      process.stderr.write = write
    }
    expect(written).toEqual(["@dispatch/report: DIOPTRA_SERVICE_URL, DIOPTRA_JOB_ID and DIOPTRA_REPORT_TOKEN are not all set; reporting is off\n"])
    const before = new Set(process.listeners("beforeExit"))
    const { clock, network, reporter } = make({ intervalMs: 60_000 }, undefined, { exitFlush: true })
    const added = process.listeners("beforeExit").filter((l) => !before.has(l))
    // One listener for every reporter, added with the first.
    expect(added.length).toBeLessThanOrEqual(1)
    const listener = [...process.listeners("beforeExit")].find((l) => l.name === "flushAtExit")
    expect(listener).toBeDefined()
    // A second reporter adds no second listener; one made without the exit flush is not flushed by it.
    const second = make({ intervalMs: 60_000 }, undefined, { exitFlush: true })
    const quiet = make({ intervalMs: 60_000 })
    expect(process.listeners("beforeExit").filter((l) => l.name === "flushAtExit")).toHaveLength(1)
    reporter.logMetric("loss", 1, 0)
    quiet.reporter.logMetric("loss", 1, 0)
    listener?.(0)
    await clock.advance(0)
    await quiet.clock.advance(0)
    expect(network.posts).toHaveLength(1)
    expect(reporter.enabled).toBe(false)
    expect(second.reporter.enabled).toBe(false)
    expect(quiet.network.posts).toHaveLength(0)
    expect(quiet.reporter.enabled).toBe(true)
  })

  it("a flush that meets a permanent refusal answers false; the exit after it says only the refusal", async () => {
    const { clock, reporter, said } = make({ intervalMs: 60_000 }, () => ({ status: 403, error: "Forbidden: x" }))
    reporter.logMetric("loss", 1, 0)
    const flushed = reporter.flush(1000)
    await clock.advance(0)
    expect(await flushed).toBe(false)
    reporter.exiting()
    await clock.advance(10_000)
    expect(said).toEqual(["@dispatch/report: stopped sending: the service answered 403: Forbidden: x; the job's reports are no longer taken\n"])
  })

  it("says each kind of refusal once", async () => {
    const { clock, reporter, said } = make({ intervalMs: 10 }, (n) => (n % 2 === 0 ? { status: 400, error: "A: a" } : { status: 422, error: "B: b" }))
    for (let step = 0; step < 4; step++) {
      reporter.logMetric("loss", 1, step)
      await clock.advance(10)
    }
    expect(said.map((l) => l.split(" (")[1]?.split(")")[0])).toEqual(["400: A: a", "422: B: b"])
  })
})
