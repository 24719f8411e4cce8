// dispatch_report (Python) against the real job service with faults injected between them: every call returns at
// once whatever the service does, nothing is lost beyond the drops it counts and tells, nothing is stored twice
// across retries of a batch that landed, and what is buffered is sent at exit. What the service stored is read back
// from its database.
import { spawn, spawnSync } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { faultProxy, type Fault, type FaultProxy } from "./FaultProxy.ts"
import { useReportService } from "./ReportService.ts"

const pythonDir = fileURLToPath(new URL("../../../../python/", import.meta.url))
const driver = fileURLToPath(new URL("./reporter_driver.py", import.meta.url))

// A Python 3.9 interpreter: python3.9 on the PATH, else one pyenv installed.
const pyenvVersions = join(process.env["PYENV_ROOT"] ?? join(homedir(), ".pyenv"), "versions")
const python39 = [
  "python3.9",
  ...(existsSync(pyenvVersions) ? readdirSync(pyenvVersions).filter((v) => v.startsWith("3.9.")).map((v) => join(pyenvVersions, v, "bin", "python3")) : [])
].find((candidate) => spawnSync(candidate, ["-c", "import sys; assert sys.version_info[:2] == (3, 9)"]).status === 0)

// Each call must return well within this: it never waits on the network, whose faults here last a second or more.
const callBudgetS = 0.1

interface Run {
  readonly code: number | null
  readonly lines: ReadonlyArray<any>
  readonly stderr: string
}

/** Runs the driver with a plan, reporting through `url` for the job; `afterLogged` runs once it made its calls, and
 * the driver then goes on (when the plan waits for it). */
const runDriver = (
  plan: Record<string, unknown>,
  env: Record<string, string>,
  afterLogged?: () => void | Promise<void>,
  python = "python3"
): Promise<Run> =>
  new Promise((resolve, reject) => {
    const child = spawn(python, [driver, JSON.stringify(plan)], { env: { PATH: process.env["PATH"] ?? "", PYTHONPATH: pythonDir, ...env }, stdio: ["pipe", "pipe", "pipe"] })
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

const summaryOf = (run: Run) => run.lines.find((line) => "calls" in line)

const forwardAfter = (faults: ReadonlyArray<Fault>) => (n: number): Fault => faults[n] ?? { kind: "forward" }

describe("dispatch_report against the job service through a fault proxy", () => {
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

  test("a training loop's metrics, log lines and logging records all land once, sent at exit without a flush", async () => {
    const job = await service().job("happy")
    proxy.use(forwardAfter([]))
    const run = await runDriver(
      { metrics: 2500, logs: 30, many: [{ acc: 0.5, lr: 0.1 }], lines: [["WARNING", "careful"], [40, "bad"]], options: { interval: 0.05 } },
      envFor(job)
    )
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toBe("")
    const summary = summaryOf(run)
    expect(summary.calls).toBe(2500 + 30 + 1 + 2)
    expect(summary.max_call_s).toBeLessThan(callBudgetS)
    const stored = await service().storedOf(job.id)
    const loss = stored.metrics.filter((m) => m["name"] === "loss").map((m) => m["step"])
    expect(loss).toEqual(Array.from({ length: 2500 }, (_, i) => i))
    expect(stored.metrics.filter((m) => m["name"] !== "loss").map((m) => [m["name"], m["value"]])).toEqual([["acc", 0.5], ["lr", 0.1]])
    expect(stored.logs.filter((l) => l["loggerName"] === "driver").map((l) => l["message"])).toEqual(Array.from({ length: 30 }, (_, i) => `line ${i}`))
    expect(stored.logs.filter((l) => l["loggerName"] === "train").map((l) => [l["severity"], l["message"]])).toEqual([["WARNING", "careful"], ["ERROR", "bad"]])
    // Batches, not a request per record.
    expect(proxy.seen.length).toBeLessThan(50)
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
    const run = await runDriver({ metrics: 3000, options: { interval: 0.05, batch_size: 500, backoff: 0.05 }, close: 60 }, envFor(job))
    expect(run.code, run.stderr).toBe(0)
    const summary = summaryOf(run)
    expect(summary.max_call_s).toBeLessThan(callBudgetS)
    expect(run.lines.find((line) => "closed" in line).closed).toBe(true)
    // Nothing lost, nothing doubled: the lost answers' batches landed, and their retries under the same key did not store again.
    expect(await stepsOf(job.id)).toEqual(Array.from({ length: 3000 }, (_, i) => i))
    expect(summary.stats.sent.metrics).toBe(3000)
    // The batch refused with 503 was retried under its key, no sooner than Retry-After said.
    const [first, second] = proxy.seen
    expect(second?.key).toBe(first?.key)
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(900)
    const lost = proxy.seen.filter((s) => s.fault === "lose-answer")
    expect(lost).toHaveLength(2)
    for (const one of lost) expect(proxy.seen.filter((s) => s.key === one.key).length).toBeGreaterThan(1)
  })

  test("a service slower than the reporter's timeout: its retries wait for the first to finish and store nothing twice", async () => {
    const job = await service().job("slow")
    proxy.use(forwardAfter([{ kind: "delay", ms: 1500 }, { kind: "delay", ms: 1500 }]))
    const run = await runDriver({ metrics: 400, options: { interval: 0.05, timeout: 0.3, backoff: 0.05 }, close: 60 }, envFor(job))
    expect(run.code, run.stderr).toBe(0)
    expect(summaryOf(run).max_call_s).toBeLessThan(callBudgetS)
    expect(await stepsOf(job.id)).toEqual(Array.from({ length: 400 }, (_, i) => i))
  })

  test("the service down while the buffer fills: the oldest are dropped, counted, and told when it answers again; the newest all land", async () => {
    const job = await service().job("down")
    let down = true
    proxy.use(() => (down ? { kind: "status", status: 503 } : { kind: "forward" }))
    const total = 2000
    const buffer = 100
    const run = await runDriver(
      { metrics: total, wait_for_go: true, options: { interval: 0.05, max_buffer: buffer, batch_size: 50, backoff: 0.05, max_backoff: 0.2 }, close: 60 },
      envFor(job),
      async () => {
        // The outage lasts until the reporter has met it at least once.
        while (proxy.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 10))
        down = false
      }
    )
    expect(run.code, run.stderr).toBe(0)
    const summary = summaryOf(run)
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
    const run = await runDriver({ metrics: 1000, pace: 0.0005, options: { interval: 0.02, batch_size: 50 } }, envFor(job))
    expect(run.code, run.stderr).toBe(0)
    expect(summaryOf(run).max_call_s).toBeLessThan(callBudgetS)
    expect(run.stderr.match(/stopped sending/g)).toHaveLength(1)
    expect(run.stderr).toContain(String(status))
    // It stopped after the first refusal.
    expect(proxy.seen).toHaveLength(1)
  })

  test("the real service refusing an unknown token: one line on stderr, nothing stored, training unharmed", async () => {
    const job = await service().job("token")
    proxy.use(forwardAfter([]))
    const run = await runDriver({ metrics: 200, close: 10 }, envFor({ id: job.id, token: `${job.token.slice(0, -4)}0000` }))
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toMatch(/stopped sending: the service answered 401: Unauthenticated/)
    expect(await stepsOf(job.id)).toEqual([])
  })

  test("only rank 0 reports unless asked: RANK=1 sends nothing; DISPATCH_REPORT_ALL_RANKS=1 makes it report", async () => {
    const job = await service().job("ranks")
    proxy.use(forwardAfter([]))
    const quiet = await runDriver({ metrics: 50, close: 10 }, envFor(job, { RANK: "1" }))
    expect(quiet.code, quiet.stderr).toBe(0)
    expect(proxy.seen).toHaveLength(0)
    expect(quiet.stderr).toBe("")
    const loud = await runDriver({ metrics: 50, close: 10 }, envFor(job, { PET_NODE_RANK: "2", DISPATCH_REPORT_ALL_RANKS: "1" }))
    expect(loud.code, loud.stderr).toBe(0)
    expect(await stepsOf(job.id)).toHaveLength(50)
  })

  test("without the service's variables it says so once and every call is a no-op", async () => {
    const run = await runDriver({ metrics: 100 }, {})
    expect(run.code).toBe(0)
    expect(run.stderr.match(/reporting is off/g)).toHaveLength(1)
    expect(summaryOf(run).calls).toBe(100)
  })

  test("bad values are refused in the process, named once on stderr, and never poison a batch", async () => {
    const job = await service().job("badvalues")
    proxy.use(forwardAfter([]))
    const run = await runDriver(
      { many: [{ loss: 1, "9bad": 2 }, { loss: 2, acc: "x" }], lines: [["LOUD", "no such level"], ["INFO", "kept\u0000nul"]], close: 10 },
      envFor(job)
    )
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toMatch(/metric name '9bad'/)
    expect(run.stderr).toMatch(/value 'x' is not a number/)
    const stored = await service().storedOf(job.id)
    expect(stored.metrics.map((m) => [m["name"], m["step"]])).toEqual([["loss", 0], ["loss", 1]])
    expect(stored.logs.map((l) => l["message"])).toEqual(["kept\ufffdnul"])
  })

  // Where a Python 3.9 is installed (pyenv's, on the development machines) the library runs on it; where none is,
  // the newer python3 parses the library with 3.9's grammar, which refuses what 3.9 could not read.
  test("runs on the oldest Python it supports (3.9), or parses with its grammar where none is installed", async () => {
    if (python39 === undefined) {
      const check = spawnSync("python3", ["-c", "import ast, sys; ast.parse(open(sys.argv[1]).read(), feature_version=(3, 9))", join(pythonDir, "dispatch_report.py")], { encoding: "utf8" })
      expect(check.status, check.stderr).toBe(0)
      return
    }
    const job = await service().job("py39")
    proxy.use(forwardAfter([]))
    const run = await runDriver({ metrics: 100, close: 10 }, envFor(job), undefined, python39)
    expect(run.code, run.stderr).toBe(0)
    expect(await stepsOf(job.id)).toHaveLength(100)
  })
})
