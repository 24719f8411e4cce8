// The fault campaign every report library meets against the real job service, stated once: every call returns at
// once whatever the service does, nothing is lost beyond the drops it counts and tells, nothing is stored twice
// across retries of a batch that landed, and what is buffered is sent when the process is about to exit. Each library
// is run by a driver of its own (a process that makes a training loop's calls and prints what it saw as JSON lines);
// the plans are written once, in one vocabulary (options camelCase, in milliseconds; `close` and `pace` in seconds),
// which each driver translates to its library's names and units. What the service stored is read back from its
// database.
import { spawn } from "node:child_process"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { faultProxy, type Fault, type FaultProxy } from "./FaultProxy.ts"
import { useReportService, type ReportService } from "./ReportService.ts"

/** A report library as the campaign runs it: its driver's command, and what differs in what the library says. */
export interface ReporterLibrary {
  /** Names the library in the campaign's title. */
  readonly name: string
  /** The program that runs the driver, and its arguments before the plan. */
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** The driver's environment besides PATH and the service's variables. */
  readonly env: Readonly<Record<string, string>>
  /** How the library's messages quote a value it names (Python's repr quotes with ', JSON with "). */
  readonly quote: string
  /** What a batch's Idempotency-Key looks like. */
  readonly keyPattern: RegExp
  /** Fewer requests than this carry the happy case's records: batches, not a request per record. */
  readonly happyRequestsBelow: number
}

/** What one driver run printed and how it ended. */
export interface Run {
  readonly code: number | null
  readonly lines: ReadonlyArray<any>
  readonly stderr: string
}

/** Runs the library's driver with a plan, reporting as `env` says; `afterLogged` runs once it made its calls, and
 * the driver then goes on (when the plan waits for it). */
export const runDriver = (
  library: ReporterLibrary,
  plan: Record<string, unknown>,
  env: Record<string, string>,
  afterLogged?: () => void | Promise<void>
): Promise<Run> =>
  new Promise((resolve, reject) => {
    const child = spawn(library.command, [...library.args, JSON.stringify(plan)], {
      env: { PATH: process.env["PATH"] ?? "", ...library.env, ...env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      const before = stdout
      stdout += chunk.toString()
      if (!before.includes('"logged"') && stdout.includes('"logged"')) {
        Promise.resolve(afterLogged?.()).then(() => child.stdin.end("go\n"), reject)
      }
    })
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("error", reject)
    child.on("close", (code) =>
      resolve({
        code,
        stderr,
        lines: stdout
          .split("\n")
          .filter((line) => line.trim() !== "")
          .map((line) => JSON.parse(line))
      })
    )
  })

/** The driver's last line: its calls, the slowest, and the reporter's stats. */
export const summaryOf = (run: Run) => run.lines.find((line) => "calls" in line)

/** The faults in order, one a request, and every later request forwarded. */
export const forwardAfter = (faults: ReadonlyArray<Fault>) => (n: number): Fault => faults[n] ?? { kind: "forward" }

export const range = (n: number) => Array.from({ length: n }, (_, i) => i)

// Each call must return well within this: a call that waited on the network would wait out a fault here (a
// Retry-After of 1 s, a delay of 1.5 s, a lost or hung answer until its timeout), while a loaded machine's pauses stay
// far below it (0.12 s was seen at load 15 on 2 cores, beyond the 0.1 s this once was).
export const callBudgetS = 0.5

/** What a library's own cases get from the campaign they run in. */
export interface Campaign {
  readonly service: () => ReportService
  readonly proxy: () => FaultProxy
  /** The service's variables for a job, through the fault proxy. */
  readonly envFor: (job: { readonly id: number; readonly token: string }, extra?: Record<string, string>) => Record<string, string>
  readonly stepsOf: (job: number) => Promise<ReadonlyArray<number>>
  readonly run: (plan: Record<string, unknown>, env: Record<string, string>, afterLogged?: () => void | Promise<void>) => Promise<Run>
}

/** Runs the campaign against the library, then the library's own cases (`more`) in the same service and proxy. */
export const reporterCampaign = (library: ReporterLibrary, more: (campaign: Campaign) => void = () => {}) =>
  describe(`${library.name} against the job service through a fault proxy`, () => {
    const service = useReportService("pglite")
    let proxy: FaultProxy
    beforeAll(async () => {
      proxy = await faultProxy(service().server.url)
    })
    afterAll(async () => {
      await proxy?.close()
    })

    const envFor = (job: { readonly id: number; readonly token: string }, extra: Record<string, string> = {}) => ({
      DIOPTRA_SERVICE_URL: `${proxy.url}/api/v1`,
      DIOPTRA_JOB_ID: String(job.id),
      DIOPTRA_REPORT_TOKEN: job.token,
      ...extra
    })
    const stepsOf = async (job: number) => (await service().storedOf(job)).metrics.map((m) => m["step"] as number)
    const run = (plan: Record<string, unknown>, env: Record<string, string>, afterLogged?: () => void | Promise<void>) =>
      runDriver(library, plan, env, afterLogged)
    const q = library.quote

    test("a training loop's metrics, NaN and the infinities, and log lines all land once, sent at exit without a flush or a close", async () => {
      const job = await service().job("happy")
      proxy.use(forwardAfter([]))
      const before = Date.now()
      const result = await run(
        { metrics: 2500, logs: 30, many: [{ acc: 0.5, lr: 0.1 }], lines: [["WARNING", "careful"], [40, "bad"], ["warn", "said as Python's logging says it"]], specials: true, options: { intervalMs: 50 } },
        envFor(job)
      )
      const after = Date.now()
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).toBe("")
      const summary = summaryOf(result)
      expect(summary.calls).toBe(2500 + 30 + 1 + 3 + 5)
      expect(summary.max_call_s).toBeLessThan(callBudgetS)
      const stored = await service().storedOf(job.id)
      expect(stored.metrics.filter((m) => m["name"] === "loss").map((m) => m["step"])).toEqual(range(2500))
      expect(stored.metrics.filter((m) => m["name"] === "acc" || m["name"] === "lr").map((m) => [m["name"], m["value"]])).toEqual([["acc", 0.5], ["lr", 0.1]])
      expect(stored.metrics.filter((m) => m["name"] === "special").map((m) => [m["step"], m["value"], m["specialValue"]])).toEqual([
        [0, 0, "nan"],
        [1, 0, "inf"],
        [2, 0, "-inf"],
        [3, 0, null],
        [4, 1e300, null]
      ])
      expect(stored.logs.filter((l) => l["loggerName"] === "driver").map((l) => l["message"])).toEqual(range(30).map((i) => `line ${i}`))
      expect(stored.logs.filter((l) => l["loggerName"] === "train").map((l) => [l["severity"], l["message"]])).toEqual([
        ["WARNING", "careful"],
        ["ERROR", "bad"],
        ["WARNING", "said as Python's logging says it"]
      ])
      // Each record carries the time of its call, not of its batch's arrival.
      for (const record of [...stored.metrics, ...stored.logs]) {
        expect(record["atMs"]).toBeGreaterThanOrEqual(before)
        expect(record["atMs"]).toBeLessThanOrEqual(after)
      }
      // Batches, not a request per record.
      expect(proxy.seen.length).toBeLessThan(library.happyRequestsBelow)
      expect(summary.stats.refused).toEqual({ metrics: 0, logs: 0 })
    })

    test("503 with Retry-After, 500, a dropped connection, a lost answer and a slow answer: every record stored exactly once", async () => {
      const job = await service().job("faults")
      proxy.use(
        forwardAfter([
          { kind: "status", status: 503, retryAfter: "1" },
          { kind: "status", status: 500 },
          { kind: "drop" },
          { kind: "lose-answer" },
          { kind: "delay", ms: 300 },
          { kind: "lose-answer" }
        ])
      )
      const result = await run({ metrics: 3000, options: { intervalMs: 50, batchSize: 500, backoffMs: 50 }, close: 60 }, envFor(job))
      expect(result.code, result.stderr).toBe(0)
      const summary = summaryOf(result)
      expect(summary.max_call_s).toBeLessThan(callBudgetS)
      expect(result.lines.find((line) => "closed" in line).closed).toBe(true)
      // Nothing lost, nothing doubled: the lost answers' batches landed, and their retries under the same key did not store again.
      expect(await stepsOf(job.id)).toEqual(range(3000))
      expect(summary.stats.sent.metrics).toBe(3000)
      expect(summary.stats.retries).toBeGreaterThanOrEqual(5)
      // The batch refused with 503 was retried under its key, no sooner than Retry-After said.
      const [first, second] = proxy.seen
      expect(first?.key).toMatch(library.keyPattern)
      expect(second?.key).toBe(first?.key)
      expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(900)
      const lost = proxy.seen.filter((s) => s.fault === "lose-answer")
      expect(lost).toHaveLength(2)
      for (const one of lost) expect(proxy.seen.filter((s) => s.key === one.key).length).toBeGreaterThan(1)
      // Each batch has a key of its own.
      expect(new Set(proxy.seen.map((s) => s.key)).size).toBeGreaterThanOrEqual(6)
    })

    test("a service slower than the reporter's timeout: its retries wait for the first to finish and store nothing twice", async () => {
      const job = await service().job("slow")
      proxy.use(forwardAfter([{ kind: "delay", ms: 1500 }, { kind: "delay", ms: 1500 }]))
      const result = await run({ metrics: 400, options: { intervalMs: 50, timeoutMs: 300, backoffMs: 50 }, close: 60 }, envFor(job))
      expect(result.code, result.stderr).toBe(0)
      expect(summaryOf(result).max_call_s).toBeLessThan(callBudgetS)
      expect(await stepsOf(job.id)).toEqual(range(400))
    })

    test("the service down while the buffer fills: the oldest are dropped, counted, and told when it answers again; the newest all land", async () => {
      const job = await service().job("down")
      let down = true
      proxy.use(() => (down ? { kind: "status", status: 503 } : { kind: "forward" }))
      const total = 2000
      const buffer = 100
      const result = await run(
        { metrics: total, wait_for_go: true, options: { intervalMs: 50, maxBuffer: buffer, batchSize: 50, backoffMs: 50, maxBackoffMs: 200 }, close: 60 },
        envFor(job),
        async () => {
          // The outage lasts until the reporter has met it at least once.
          while (proxy.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 10))
          down = false
        }
      )
      expect(result.code, result.stderr).toBe(0)
      const summary = summaryOf(result)
      expect(summary.max_call_s).toBeLessThan(callBudgetS)
      expect(proxy.seen[0]?.status).toBe(503)
      expect(summary.stats.retries).toBeGreaterThan(0)
      const stored = await service().storedOf(job.id)
      const steps = stored.metrics.map((m) => m["step"] as number)
      expect(new Set(steps).size).toBe(steps.length)
      // The newest records are all there.
      for (let step = total - buffer; step < total; step++) expect(steps).toContain(step)
      // The drops are told with the batches that land after them (the one retried through the outage may carry some).
      const warnings = stored.logs.filter((l) => l["loggerName"] === "dispatch.report")
      const told = warnings.reduce((sum, w) => sum + Number(/dropped (\d+) metric values/.exec(String(w["message"]))?.[1]), 0)
      // Nothing lost beyond the drops counted and told.
      expect(steps.length + told).toBe(total)
      expect(told).toBeGreaterThan(0)
      expect(summary.stats.dropped).toEqual({ metrics: 0, logs: 0 })
    })

    test.each([
      [401, "Unauthenticated"],
      [403, "Forbidden"],
      [404, "ResourceNotFound"]
    ])("a permanent refusal (%i) stops the sending, said once on stderr; the loop runs on unharmed and exits at once", async (status, error) => {
      const job = await service().job(`refused-${status}`)
      proxy.use(() => ({ kind: "status", status, body: { error, message: "refused by the test", detail: [] } }))
      const result = await run({ metrics: 1000, pace: 0.0005, options: { intervalMs: 20, batchSize: 50 } }, envFor(job))
      expect(result.code, result.stderr).toBe(0)
      const summary = summaryOf(result)
      expect(summary.calls).toBe(1000)
      expect(summary.max_call_s).toBeLessThan(callBudgetS)
      expect(result.stderr.match(/stopped sending/g)).toHaveLength(1)
      expect(result.stderr).toContain(`stopped sending: the service answered ${status}: ${error}: refused by the test`)
      expect(summary.stats.stopped).toContain(String(status))
      // It stopped after the first refusal.
      expect(proxy.seen).toHaveLength(1)
    })

    test("the real service refusing an unknown token: one line on stderr, nothing stored, training unharmed", async () => {
      const job = await service().job("token")
      proxy.use(forwardAfter([]))
      const result = await run({ metrics: 200, close: 10 }, envFor({ id: job.id, token: `${job.token.slice(0, -4)}0000` }))
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).toMatch(/stopped sending: the service answered 401: Unauthenticated/)
      expect(await stepsOf(job.id)).toEqual([])
    })

    test("another refusal (a batch the service will not take) drops that batch only, said once; later batches land", async () => {
      const job = await service().job("refused-once")
      proxy.use(forwardAfter([{ kind: "status", status: 400, body: { error: "InvalidRecord", message: "refused by the test", detail: [] } }]))
      const result = await run({ metrics: 300, options: { intervalMs: 20, batchSize: 100 }, close: 30 }, envFor(job))
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr.match(/was refused/g)).toHaveLength(1)
      expect(result.stderr).toContain("(400: InvalidRecord: refused by the test); it is not sent again")
      const summary = summaryOf(result)
      const steps = await stepsOf(job.id)
      // The refused batch's records are counted as refused, and the rest landed once each, in order.
      expect(steps.length + summary.stats.refused.metrics).toBe(300)
      expect(summary.stats.refused.metrics).toBeGreaterThan(0)
      expect(steps).toEqual(range(300).slice(summary.stats.refused.metrics))
    })

    test("only rank 0 reports unless asked: RANK=1 sends nothing; DISPATCH_REPORT_ALL_RANKS=1 makes it report", async () => {
      const job = await service().job("ranks")
      proxy.use(forwardAfter([]))
      const quiet = await run({ metrics: 50, close: 10 }, envFor(job, { RANK: "1" }))
      expect(quiet.code, quiet.stderr).toBe(0)
      expect(proxy.seen).toHaveLength(0)
      expect(quiet.stderr).toBe("")
      const loud = await run({ metrics: 50, close: 10 }, envFor(job, { PET_NODE_RANK: "2", DISPATCH_REPORT_ALL_RANKS: "1" }))
      expect(loud.code, loud.stderr).toBe(0)
      expect(await stepsOf(job.id)).toHaveLength(50)
    })

    test("without the service's variables it says so once and every call is a no-op", async () => {
      const result = await run({ metrics: 100, close: 1 }, {})
      expect(result.code).toBe(0)
      expect(result.stderr.match(/reporting is off/g)).toHaveLength(1)
      expect(summaryOf(result).calls).toBe(100)
      expect(result.lines.find((line) => "closed" in line).closed).toBe(true)
    })

    test("bad values are refused in the process, named once on stderr, and never poison a batch", async () => {
      const job = await service().job("badvalues")
      proxy.use(forwardAfter([]))
      const result = await run(
        {
          many: [{ loss: 1, "9bad": 2 }, { loss: 2, acc: "x" }],
          lines: [["LOUD", "no such level"], ["INFO", "kept\u0000nul"]],
          bad: [["loss", 3, -1], ["loss", 3, 1.5], ["x".repeat(256), 1, 0]],
          close: 10
        },
        envFor(job)
      )
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).toContain(`metric name ${q}9bad${q}`)
      expect(result.stderr).toContain(`value ${q}x${q} is not a number`)
      expect(result.stderr).toMatch(/step -1 is not a whole number from 0/)
      expect(result.stderr).toContain(`level ${q}LOUD${q} is not one of`)
      expect(summaryOf(result).stats.refused).toEqual({ metrics: 5, logs: 1 })
      const stored = await service().storedOf(job.id)
      expect(stored.metrics.map((m) => [m["name"], m["step"]])).toEqual([["loss", 0], ["loss", 1]])
      expect(stored.logs.map((l) => l["message"])).toEqual(["kept\ufffdnul"])
    })

    more({ service, proxy: () => proxy, envFor, stepsOf, run })
  })
