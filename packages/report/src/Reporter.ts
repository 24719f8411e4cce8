// A job's reporter: the calls training makes put records in a bounded buffer and return at once; a sender on the
// event loop takes batches off it (by size, and every interval) and posts each until it lands, is refused, or
// sending stops, under one Idempotency-Key kept across its retries. No call throws, and nothing the reporter
// starts keeps the process alive, except while a flush (an awaited one, or the one at exit) is bounded by its
// timeout.
import { randomUUID } from "node:crypto"
import { retryDelayMs } from "./Backoff.ts"
import { takeBatch, type Batch } from "./Batch.ts"
import { systemClock, type Clock, type Timer } from "./Clock.ts"
import { RecordBuffer, type Drops } from "./RecordBuffer.ts"
import { retryAfterMs } from "./RetryAfter.ts"
import { settingsOf, type ReporterOptions, type Settings, type Target } from "./Settings.ts"
import { httpTransport, type Transport } from "./Transport.ts"
import { isMetricName, maxMessage, maxName, severityOf, stepOf, storable, valueOf, type BufferedRecord } from "./WireRecord.ts"

// Statuses worth sending the same batch again for: the service is starting, overloaded or briefly failing.
const retryStatuses = new Set([408, 425, 429, 500, 502, 503, 504])
// Statuses that say this job's reports will never be taken: the token is refused, or the job is gone.
const permanentStatuses = new Set([401, 403, 404, 410])
// Names already checked, kept up to this many so the common case is one lookup.
const maxKnownNames = 10_000
// After close, a batch that still fails is given up after this many posts.
const postsAfterClose = 3

/** What a reporter sent, dropped (the buffer full, not yet told to the service) and refused, and whether it stopped. */
export interface ReporterStats {
  readonly sent: { readonly metrics: number; readonly logs: number; readonly batches: number }
  readonly dropped: Drops
  readonly refused: { readonly metrics: number; readonly logs: number }
  readonly buffered: number
  readonly retries: number
  /** Why sending stopped, or null while it goes on. */
  readonly stopped: string | null
}

/** What a reporter runs on, given by tests: time, the network, randomness, stderr, and whether it flushes at exit. */
export interface ReporterRuntime {
  readonly clock?: Clock
  readonly transport?: (target: Target, timeoutMs: number) => Transport
  /** Uniform in [0, 1): the jitter of each retry's wait. */
  readonly random?: () => number
  readonly stderr?: (line: string) => void
  readonly exitFlush?: boolean
}

// The reporters to flush when the process is about to exit; one listener for all.
const atExit = new Set<Reporter>()
let listening = false
const flushAtExit = (): void => {
  for (const reporter of [...atExit]) reporter.exiting()
}

/** Sends one job's metrics and log records to the job service, in batches, from the event loop. */
export class Reporter {
  /** Whether calls record anything: false outside a job, on a rank that does not report, after close or a permanent refusal. */
  enabled = false
  /** The process's rank. */
  readonly rank: number
  private readonly settings: Settings
  private readonly clock: Clock
  private readonly random: () => number
  private readonly stderr: (line: string) => void
  private readonly buffer: RecordBuffer<BufferedRecord>
  private readonly transport: Transport | undefined
  private readonly names = new Set<string>()
  private readonly said = new Set<string>()
  private readonly waiters = new Set<() => void>()
  private readonly sentCounts = { metrics: 0, logs: 0, batches: 0 }
  private readonly refusedCounts = { metrics: 0, logs: 0 }
  private retries = 0
  private stoppedReason: string | null = null
  private closed = false
  private exitHandled = false
  private pumping: Promise<void> | undefined
  private kicked = false
  private flushing = 0
  private tick: Timer | undefined
  private sleeping: Timer | undefined

  constructor(options: ReporterOptions = {}, runtime: ReporterRuntime = {}) {
    this.clock = runtime.clock ?? systemClock
    this.random = runtime.random ?? Math.random
    this.stderr = runtime.stderr ?? ((line) => process.stderr.write(line))
    this.settings = settingsOf(options, process.env)
    this.rank = this.settings.rank
    this.buffer = new RecordBuffer<BufferedRecord>(this.settings.maxBuffer, (record) => record.kind === "metric")
    const target = this.settings.target
    if ("off" in target) {
      if (!target.quiet) this.say(target.off)
      this.transport = undefined
      return
    }
    this.transport = (runtime.transport ?? httpTransport)(target, this.settings.timeoutMs)
    this.enabled = true
    this.armTick()
    if (runtime.exitFlush ?? true) {
      atExit.add(this)
      if (!listening) {
        listening = true
        process.on("beforeExit", flushAtExit)
      }
    }
  }

  // The calls training makes: each returns at once.

  /** Records `value` of metric `name` at `step` (0 when absent), measured now. NaN and the infinities are kept. */
  logMetric(name: string, value: number, step?: number): void {
    if (!this.enabled) return
    try {
      const number = typeof value === "number" ? value : valueOf(value)
      if (number === undefined) return this.refuseLocally(`metric ${show(name)}: value ${show(value)} is not a number`, "metrics")
      if (!this.names.has(name) && !this.nameOk(name)) return
      const whole = typeof step === "number" && Number.isSafeInteger(step) && step >= 0 ? step : stepOf(step)
      if (whole === undefined) return this.refuseLocally(`metric ${show(name)}: step ${show(step)} is not a whole number from 0`, "metrics")
      this.put({ kind: "metric", name, value: number, step: whole, at: this.clock.now() })
    } catch (error) {
      this.failedCall(error, "metrics")
    }
  }

  /** Records several metrics at one step, as `logMetric` records each. */
  logMetrics(metrics: Readonly<Record<string, number>>, step?: number): void {
    if (!this.enabled) return
    try {
      if (typeof metrics !== "object" || metrics === null) return this.refuseLocally(`logMetrics takes an object of names to numbers, not ${show(metrics)}`, "metrics")
      for (const [name, value] of Object.entries(metrics)) this.logMetric(name, value, step)
    } catch (error) {
      this.failedCall(error)
    }
  }

  /** Records a log line at `level` (DEBUG, INFO, WARNING, ERROR, CRITICAL, or a number on Python's logging scale). */
  log(level: string | number, message: string, loggerName?: string): void {
    if (!this.enabled) return
    try {
      const severity = severityOf(level)
      if (severity === undefined) return this.refuseLocally(`log: level ${show(level)} is not one of DEBUG, INFO, WARNING, ERROR, CRITICAL`, "logs")
      const text = storable(typeof message === "string" ? message : String(message), maxMessage)
      const who = storable(loggerName === undefined ? this.settings.loggerName : String(loggerName), maxName)
      this.put({ kind: "log", severity, loggerName: who, message: text, at: this.clock.now() })
    } catch (error) {
      this.failedCall(error, "logs")
    }
  }

  /** Sends what is buffered now, waiting at most `timeoutMs`: true when everything buffered was sent (or refused),
   * false when the time ran out first (what is left stays buffered). Never rejects. */
  async flush(timeoutMs = 10_000): Promise<boolean> {
    if (!this.enabled) return true
    try {
      if (this.buffer.length === 0 && this.pumping === undefined) return true
      this.flushing++
      this.holdIfFlushing()
      try {
        return await new Promise<boolean>((resolve) => {
          let deadline: Timer | undefined
          const finish = (done: boolean) => {
            deadline?.cancel()
            this.waiters.delete(check)
            resolve(done)
          }
          const check = () => {
            if (this.stoppedReason !== null || (this.buffer.length === 0 && this.pumping === undefined)) finish(this.buffer.length === 0 && this.pumping === undefined)
          }
          deadline = this.clock.timer(Math.max(0, timeoutMs), () => finish(false))
          deadline.hold(true)
          this.waiters.add(check)
          this.pump()
          check()
        })
      } finally {
        this.flushing--
        this.holdIfFlushing()
      }
    } catch (error) {
      this.failedCall(error)
      return false
    }
  }

  /** Flushes (at most `timeoutMs`), then stops the sender. Later calls record nothing. Never rejects. */
  async close(timeoutMs = 10_000): Promise<boolean> {
    if (!this.enabled) return true
    const done = await this.flush(timeoutMs)
    this.shut()
    return done
  }

  /** What was sent, dropped (the buffer full, not yet told to the service) and refused, and whether sending stopped. */
  stats(): ReporterStats {
    return {
      sent: { ...this.sentCounts },
      dropped: { ...this.buffer.dropped },
      refused: { ...this.refusedCounts },
      buffered: this.buffer.length,
      retries: this.retries,
      stopped: this.stoppedReason
    }
  }

  /** The flush at exit: once, when the event loop is about to empty, bounded by the exit timeout. */
  exiting(): void {
    if (this.exitHandled) return
    this.exitHandled = true
    atExit.delete(this)
    if (!this.enabled) return
    const seconds = (this.settings.exitTimeoutMs / 1000).toFixed(1)
    this.flush(this.settings.exitTimeoutMs).then((done) => {
      if (!done && this.stoppedReason === null) {
        this.say(`at exit, after ${seconds} s, ${this.buffer.length} buffered records and the batch being sent were left unsent`)
      }
      this.shut()
    }, () => undefined)
  }

  // The buffer.

  private put(record: BufferedRecord): void {
    const buffer = this.buffer
    buffer.push(record)
    if (buffer.length >= this.settings.batchSize && this.pumping === undefined && !this.kicked) {
      // The batch is taken on the next turn of the event loop, not in the caller's call.
      this.kicked = true
      this.clock.timer(0, () => {
        this.kicked = false
        this.pump()
      })
    }
  }

  private nameOk(name: unknown): boolean {
    if (isMetricName(name)) {
      if (this.names.size < maxKnownNames) this.names.add(name)
      return true
    }
    this.refuseLocally(`metric name ${show(name)} must be one letter, or a letter or "_" followed by letters, digits or "_" (at most 255)`, "metrics")
    return false
  }

  private refuseLocally(why: string, kind: "metrics" | "logs"): void {
    this.refusedCounts[kind]++
    this.say(`not sent: ${why}`, why.split(":")[0])
  }

  // A call that failed inside (an argument whose conversion throws) records nothing, counted as refused.
  private failedCall(error: unknown, kind?: "metrics" | "logs"): void {
    try {
      if (kind !== undefined) this.refusedCounts[kind]++
      this.say(`not sent: a call failed: ${String(error)}`, "failed call")
    } catch {
      // Nothing more to do: a call never raises.
    }
  }

  private say(text: string, once?: string): void {
    const key = once ?? text
    if (this.said.has(key)) return
    this.said.add(key)
    try {
      this.stderr(`@dispatch/report: ${text}\n`)
    } catch {
      // stderr closed: nothing to say it on.
    }
  }

  // The sender.

  private armTick(): void {
    this.tick = this.clock.timer(this.settings.intervalMs, () => {
      if (!this.enabled) return
      this.armTick()
      if (this.buffer.length > 0 || this.buffer.dropped.metrics + this.buffer.dropped.logs > 0) this.pump()
    })
  }

  private pump(): void {
    if (this.pumping !== undefined || this.stoppedReason !== null || this.transport === undefined) return
    this.pumping = this.send(this.transport).finally(() => {
      this.pumping = undefined
      this.notify()
    })
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter()
  }

  private async send(transport: Transport): Promise<void> {
    try {
      for (;;) {
        const batch = takeBatch(this.buffer, { records: this.settings.batchSize, bytes: this.settings.batchBytes })
        if (batch === undefined) return
        await this.deliver(transport, batch)
        if (this.stoppedReason !== null) return
        // Less than a batch left: the next interval sends it, unless a flush waits for it.
        if (this.buffer.length < this.settings.batchSize && !batch.cutByBytes && this.flushing === 0) return
      }
    } catch (error) {
      this.stop(`the sender failed: ${String(error)}`)
      this.say(`stopped sending: the sender failed: ${String(error)}`)
    }
  }

  /** Sends one batch until it lands, is refused, or sending stops; its key is the same on every retry. */
  private async deliver(transport: Transport, batch: Batch): Promise<void> {
    const key = randomUUID()
    for (let attempt = 0; ; attempt++) {
      const answer = await transport.post(batch.body, key)
      const status = answer.status
      if (status !== undefined && status >= 200 && status < 300) {
        this.sentCounts.metrics += batch.metrics
        this.sentCounts.logs += batch.logs
        this.sentCounts.batches++
        return
      }
      if (status !== undefined && permanentStatuses.has(status)) {
        this.stop(`the service answered ${status} (${answer.error})`)
        this.say(`stopped sending: the service answered ${status}: ${answer.error}; the job's reports are no longer taken`)
        return
      }
      const retry = status === undefined || retryStatuses.has(status) || (status === 409 && answer.error.startsWith("IdempotencyKeyInUse"))
      if (!retry) {
        this.refusedCounts.metrics += batch.metrics
        this.refusedCounts.logs += batch.logs
        // The drops it carried were not recorded: the next batch tells them.
        this.buffer.restoreDrops(batch.dropped)
        this.say(`a batch of ${batch.metrics + batch.logs} records was refused (${status}: ${answer.error}); it is not sent again`, `refused ${status}`)
        return
      }
      this.retries++
      // Closed, a batch that still fails is given up after a few posts; a flush at exit is bounded anyway.
      if (this.closed && attempt + 1 >= postsAfterClose) return
      await this.sleep(retryDelayMs(attempt, this.settings, this.random(), retryAfterMs(answer.retryAfter, this.clock.now())))
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.clock.timer(ms, () => {
        this.sleeping = undefined
        resolve()
      })
      this.sleeping = timer
      if (this.flushing > 0) timer.hold(true)
    })
  }

  // While a flush waits, what the sender waits on keeps the process alive; otherwise nothing does.
  private holdIfFlushing(): void {
    const hold = this.flushing > 0
    this.transport?.hold(hold)
    this.sleeping?.hold(hold)
  }

  private stop(reason: string): void {
    this.stoppedReason = reason
    this.enabled = false
    this.buffer.clear()
    this.tick?.cancel()
    atExit.delete(this)
    this.notify()
  }

  private shut(): void {
    this.closed = true
    this.enabled = false
    this.tick?.cancel()
    atExit.delete(this)
    const transport = this.transport
    if (this.pumping === undefined) transport?.close()
    else void this.pumping.then(() => transport?.close())
  }
}

const show = (value: unknown): string => {
  try {
    return typeof value === "string" ? JSON.stringify(value) : typeof value === "bigint" ? `${value}n` : String(value)
  } catch {
    return "(unprintable)"
  }
}
