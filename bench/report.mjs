// A training job's reporting: metric records accepted per second through the batch endpoint
// (POST /jobs/{id}/reports), 16 jobs each posting batches of its loss with its report token, 16 batches in flight,
// from `dispatch serve` in a process of its own on PostgreSQL 15, against its ceiling measured as bench/server.mjs
// measures the service's other figures: ceiling = 1 / (1/replay + 1/bare), replay being pgbench sending exactly the
// statements one batch sends (captured from the service, prepared as it prepares them, 16 clients) and bare a bare
// node:http server in a process of its own answering the same batches with a constant, driven by the same client.
// Target: >= 50% of the ceiling. Then the cost of dispatch_report's log_metric to a Python training loop: a tight
// loop of calls against the same loop calling an empty function, in the same run, with the reporter sending to that
// service meanwhile (so the sender's work in the same process is counted). Target: <= 5 us per call.
// Beside that ceiling, the floors a service built on node-postgres and effect/http-api cannot go below, each in a
// process of its own: the service's own PostgreSQL client sending one batch's statements from node
// (bench/lib/client-replay.mjs) and effect/http-api alone answering the batches with a constant after decoding them
// (bench/lib/effect-minimal.mjs); the floor ceiling is 1 / (1/client + 1/effect/http-api alone), and the floors' CPU
// per batch is set against dispatch serve's (a loaded machine disturbs CPU far less than rates).
// DISPATCH_BENCH_PROFILE=DIR runs `dispatch serve` under `node --cpu-prof`, writes its profile in DIR and prints where
// its CPU went (bench/lib/cpu-profile.mjs). While iterating: DISPATCH_BENCH_QUICK=1 measures only `dispatch serve`.
import { execFileSync, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { hashToken, reportToken, serve } from "../packages/server/dist/index.js"
import { serveReadyLine } from "../packages/cli/dist/commands/ServeReady.js"
import { apiCaller, typedCaller } from "./lib/api.mjs"
import { replayScript, scriptRate } from "./lib/pgbench.mjs"
import { withPostgres } from "./lib/postgres.mjs"
import { recordedPostgres } from "./lib/recorded-database.mjs"
import { child, processCpuMs } from "./lib/process.mjs"
import { profileSummary, summaryLines } from "./lib/cpu-profile.mjs"

const root = fileURLToPath(new URL("..", import.meta.url))
const cli = join(root, "packages", "cli", "bin", "dispatch.js")
const psql = join(process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin", "psql")

const userToken = randomBytes(24).toString("hex")
const tokens = [{ name: "bench", group: "bench", access: "write", tokenHash: hashToken(userToken, randomBytes(16)) }]
const typed = typedCaller(userToken)
const jobsReporting = 16
const concurrency = 16
// Records in one batch, as dispatch_report sends them when training logs faster than its interval.
const batchRecords = 500
const batches = 400
const budgetMs = 30_000
const target = 0.5
const overheadTargetUs = 5
const profileDir = process.env.DISPATCH_BENCH_PROFILE ?? ""
const quick = process.env.DISPATCH_BENCH_QUICK === "1"

let worlds = 0

// 16 queued jobs (their queue has no backend, which a report does not look at), each with its report token.
const reportingJobs = async (url, databaseUrl) => {
  const tag = ++worlds
  const queue = await typed(url, (c) => c.queues.create({ payload: { name: `gpu-${tag}`, description: "" } }))
  const entrypoint = await typed(url, (c) =>
    c.entrypoints.create({ payload: { name: `train-${tag}`, description: "", queues: [queue.id], parameters: [], artifactParameters: [], taskGraph: { train: { fit: {} } }, command: ["python", "train.py"] } })
  )
  const experiment = await typed(url, (c) => c.experiments.create({ payload: { name: `report-${tag}`, entrypoints: [entrypoint.id] } }))
  const secret = execFileSync(psql, ["-At", "-c", "select secret from service_keys where name = 'report'", databaseUrl], { encoding: "utf8" }).trim()
  const jobs = []
  for (let k = 0; k < jobsReporting; k++) {
    const job = await typed(url, (c) => c.jobs.create({ params: { id: experiment.id }, payload: { entrypoint: entrypoint.id, queue: queue.id, values: {}, timeout: "1h" } }))
    jobs.push({ id: job.id, call: apiCaller(reportToken(secret, job.id)), step: 0 })
  }
  return jobs
}

// The i-th batch: the next job in turn posts its loss at its next `batchRecords` steps.
const batchOf = (jobs, i) => {
  const job = jobs[i % jobs.length]
  const from = job.step
  job.step += batchRecords
  // Each record its own time, a millisecond apart, as a reporter stamps each call.
  const base = Date.UTC(2026, 0, 1)
  return {
    job,
    body: { metrics: Array.from({ length: batchRecords }, (_, n) => ({ name: "loss", value: 2 / (1 + (from + n) / 100), step: from + n, timestamp: new Date(base + from + n).toISOString() })) }
  }
}
const postBatch = (url, jobs, i) => {
  const { job, body } = batchOf(jobs, i)
  return job.call(url, "POST", `/jobs/${job.id}/reports`, body)
}

// Runs `once(i)` `count` times, `concurrency` at a time, within the budget; answers how many ran and the seconds.
const drive = async (once, count) => {
  let next = 0
  let done = 0
  const start = performance.now()
  const worker = async () => {
    while (next < count && performance.now() < start + budgetMs) {
      await once(next++)
      done++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return { done, seconds: (performance.now() - start) / 1000 }
}

// `dispatch serve` in its own process on the database: batches per second.
const serveRate = async (databaseUrl) => {
  const dir = mkdtempSync(join(tmpdir(), "dispatch-bench-report-"))
  const tokensFile = join(dir, "tokens.json")
  writeFileSync(tokensFile, JSON.stringify(tokens))
  const ready = new RegExp(`^${serveReadyLine}`, "m")
  const profileName = `report-serve-${Date.now()}.cpuprofile`
  const profiling = profileDir === "" ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${profileName}`]
  const served = await child([...profiling, cli, "serve", "--port", "0", "--tokens", tokensFile], { DATABASE_URL: databaseUrl }, (out, err) =>
    ready.test(err) ? /^(http:\/\/127\.0\.0\.1:\d+)\/api\/v1$/m.exec(out)?.[1] : undefined
  )
  try {
    const jobs = await reportingJobs(served.value, databaseUrl)
    for (let i = 0; i < 16; i++) await postBatch(served.value, jobs, i)
    const cpu = processCpuMs(served.process.pid)
    const { done, seconds } = await drive((i) => postBatch(served.value, jobs, 16 + i), batches)
    const cpuMs = (processCpuMs(served.process.pid) - cpu) / done
    console.log(
      `  dispatch serve: ${done} batches of ${batchRecords} metric records in ${seconds.toFixed(1)} s: ${((done * batchRecords) / seconds).toFixed(0)} records/s ` +
        `(${(done / seconds).toFixed(1)} batches/s); the serve process's CPU ${cpuMs.toFixed(1)} ms per batch`
    )
    const stop = async () => {
      await served.stop()
      if (profiling.length > 0) for (const line of summaryLines(profileSummary(JSON.parse(readFileSync(join(profileDir, profileName), "utf8"))), 30)) console.log(`    ${line}`)
    }
    return { rate: done / seconds, cpuMs, url: served.value, jobs, stop, dir }
  } catch (error) {
    await served.stop()
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
}

// What one batch sends to the database, from a service whose database records every statement.
const statementsOf = async (databaseUrl) => {
  const sent = []
  const started = await serve({ tokens, database: recordedPostgres(databaseUrl, sent) })
  if (started._tag !== "Success") throw new Error(started.failure.message)
  try {
    const jobs = await reportingJobs(started.success.url, databaseUrl)
    await postBatch(started.success.url, jobs, 0)
    sent.length = 0
    await postBatch(started.success.url, jobs, 1)
    return [...sent]
  } finally {
    await started.success.close()
  }
}

const bareServer = `
import { createServer } from "node:http"
const answer = JSON.stringify({ job: 1, metrics: ${batchRecords}, logs: 0, dropped: { metrics: 0, logs: 0 } })
const server = createServer((request, response) => {
  request.resume()
  request.on("end", () => response.writeHead(200, { "content-type": "application/json" }).end(answer))
})
server.listen(0, "127.0.0.1", () => console.log("http://127.0.0.1:" + server.address().port))
process.on("SIGTERM", () => process.exit(0))
`

const bareRate = async () => {
  const bare = await child(["--input-type=module", "-e", bareServer], {}, (out) => /^(http:\S+)$/m.exec(out)?.[1])
  try {
    const jobs = Array.from({ length: jobsReporting }, (_, k) => ({ id: k + 1, call: apiCaller("bare"), step: 0 }))
    const { done, seconds } = await drive((i) => postBatch(bare.value, jobs, i), batches)
    return done / seconds
  } finally {
    await bare.stop()
  }
}

// The node side of one batch's statements: the service's PostgreSQL client sending them, nothing else.
const clientFloor = (databaseUrl, statements) => {
  const dir = mkdtempSync(join(tmpdir(), "dispatch-bench-report-replay-"))
  const file = join(dir, "statements.json")
  writeFileSync(file, JSON.stringify(statements))
  try {
    const printed = execFileSync(process.execPath, [join(root, "bench", "lib", "client-replay.mjs"), databaseUrl, file, String(concurrency), "10"], { encoding: "utf8" })
    return JSON.parse(printed.trim().split("\n").at(-1))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// effect/http-api alone decoding the same batches and answering a constant: its rate and CPU per batch.
const frameworkFloor = async () => {
  const dir = mkdtempSync(join(tmpdir(), "dispatch-bench-report-minimal-"))
  const answers = join(dir, "answers.json")
  writeFileSync(answers, JSON.stringify({ "jobs.send": { job: 1, metrics: batchRecords, logs: 0, dropped: { metrics: 0, logs: 0 } } }))
  const minimal = await child([join(root, "bench", "lib", "effect-minimal.mjs"), answers], {}, (out) => /^(http:\S+)$/m.exec(out)?.[1])
  try {
    const jobs = Array.from({ length: jobsReporting }, (_, k) => ({ id: k + 1, call: apiCaller("minimal"), step: 0 }))
    for (let i = 0; i < 16; i++) await postBatch(minimal.value, jobs, i)
    const cpu = processCpuMs(minimal.process.pid)
    const { done, seconds } = await drive((i) => postBatch(minimal.value, jobs, 16 + i), batches)
    return { rate: done / seconds, cpuMs: (processCpuMs(minimal.process.pid) - cpu) / done }
  } finally {
    await minimal.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

// log_metric in a tight loop against an empty function of the same signature, in one Python process, the reporter
// sending to the service meanwhile.
const overheadScript = `
import sys, time
sys.path.insert(0, ${JSON.stringify(join(root, "python"))})
import dispatch_report
N = 200_000
def empty(name, value, step=None):
    pass
reporter = dispatch_report.Reporter(max_buffer=2 * N)
def loop(call):
    start = time.perf_counter()
    for i in range(N):
        call("loss", 0.5, i)
    return (time.perf_counter() - start) / N * 1e6
empty_us = min(loop(empty) for _ in range(3))
call_us = min(loop(reporter.log_metric) for _ in range(3))
reporter.close(60)
stats = reporter.stats()
print("%.3f %.3f %d" % (empty_us, call_us, stats["sent"]["metrics"]))
`

const overhead = (url, job) => {
  const run = spawnSync("python3", ["-c", overheadScript], {
    encoding: "utf8",
    env: { ...process.env, DIOPTRA_SERVICE_URL: `${url}/api/v1`, DIOPTRA_JOB_ID: String(job.id), DIOPTRA_REPORT_TOKEN: job.token }
  })
  if (run.status !== 0) throw new Error(`python3 failed: ${run.stderr}`)
  const [emptyUs, callUs, sent] = run.stdout.trim().split(" ").map(Number)
  const cost = callUs - emptyUs
  console.log(`dispatch_report.log_metric in a tight Python loop (200,000 calls, best of 3, the reporter sending to dispatch serve meanwhile: ${sent} records sent):`)
  console.log(`  empty function call ${emptyUs.toFixed(3)} us, log_metric ${callUs.toFixed(3)} us: overhead ${cost.toFixed(3)} us per call (target <= ${overheadTargetUs} us: ${cost <= overheadTargetUs ? "met" : "NOT met"})`)
}

// @dispatch/report's logMetric the same way, in one node process: the loop awaits a turn of the event loop every
// 1,000 calls, as an async training step does, and the sender works in those turns, so its batching and posting to
// the service are counted in the time; the empty function's loop awaits the same turns. Target: <= 5 us per call.
const nodeOverheadScript = `
import { performance } from "node:perf_hooks"
import { Reporter } from ${JSON.stringify(new URL("../packages/report/dist/index.js", import.meta.url).href)}
const N = 200_000
const chunk = 1_000
const reporter = new Reporter({ maxBuffer: 2 * N })
const empty = (name, value, step) => {}
const logMetric = (name, value, step) => reporter.logMetric(name, value, step)
const loop = async (call) => {
  const start = performance.now()
  for (let i = 0; i < N; i += chunk) {
    for (let step = i; step < i + chunk; step++) call("loss", 0.5, step)
    await new Promise((resolve) => setImmediate(resolve))
  }
  return ((performance.now() - start) / N) * 1000
}
let emptyUs = Infinity
let callUs = Infinity
for (let round = 0; round < 3; round++) {
  emptyUs = Math.min(emptyUs, await loop(empty))
  callUs = Math.min(callUs, await loop(logMetric))
}
await reporter.close(60_000)
const stats = reporter.stats()
// Every record was sent, or dropped from the full buffer and counted (the counts told to the service, so 0 left).
console.log(emptyUs.toFixed(3), callUs.toFixed(3), stats.sent.metrics, 3 * N - stats.sent.metrics - stats.refused.metrics - stats.buffered, stats.buffered)
`

const nodeOverhead = (url, job) => {
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", nodeOverheadScript], {
    encoding: "utf8",
    env: { ...process.env, DIOPTRA_SERVICE_URL: `${url}/api/v1`, DIOPTRA_JOB_ID: String(job.id), DIOPTRA_REPORT_TOKEN: job.token }
  })
  if (run.status !== 0) throw new Error(`node failed: ${run.stderr}`)
  const [emptyUs, callUs, sent, dropped, left] = run.stdout.trim().split(" ").map(Number)
  const cost = callUs - emptyUs
  console.log(`@dispatch/report's logMetric in a tight Node loop (200,000 calls, a turn of the event loop every 1,000, best of 3, the reporter sending to dispatch serve in those turns: ${sent} records sent, ${dropped} dropped from its full buffer and counted, ${left} left):`)
  console.log(`  empty function call ${emptyUs.toFixed(3)} us, logMetric ${callUs.toFixed(3)} us: overhead ${cost.toFixed(3)} us per call (target <= ${overheadTargetUs} us: ${cost <= overheadTargetUs ? "met" : "NOT met"})`)
}

await withPostgres(async (databaseUrl) => {
  // Both figures are CPU-bound: a busy machine (other work on its cores) lowers them.
  console.log(`load average at the start: ${loadavg().map((n) => n.toFixed(1)).join(", ")} (${(await import("node:os")).cpus().length} cores)`)
  console.log(`metric records through POST /jobs/{id}/reports, ${jobsReporting} jobs with their report tokens, batches of ${batchRecords}, ${concurrency} in flight, dispatch serve in its own process on PostgreSQL 15 (loopback), against its ceiling:`)
  const served = await serveRate(databaseUrl)
  try {
    if (quick) return
    const statements = await statementsOf(databaseUrl)
    console.log(`  one batch sends ${statements.length} statements: ${statements.map(({ text }) => `${text.replace(/\s+/g, " ").trim().slice(0, 48)}...`).join(" | ")}`)
    const replay = scriptRate(databaseUrl, replayScript(statements), concurrency, 10, "prepared")
    const bare = await bareRate()
    const ceiling = 1 / (1 / replay + 1 / bare)
    console.log(`  replay: pgbench sending exactly those statements, prepared, ${concurrency} clients, 10 s: ${(replay * batchRecords).toFixed(0)} records/s`)
    console.log(`  bare: bare node:http answering the same batches with a constant: ${(bare * batchRecords).toFixed(0)} records/s`)
    console.log(`  ceiling = 1 / (1/replay + 1/bare): ${(ceiling * batchRecords).toFixed(0)} records/s`)
    const met = served.rate / ceiling >= target
    console.log(
      `  records accepted by dispatch serve / ceiling: ${(served.rate * batchRecords).toFixed(0)}/s, ${((100 * served.rate) / ceiling).toFixed(1)}% (target >= ${100 * target}%: ${met ? "met" : "NOT met"})`
    )
    const client = clientFloor(databaseUrl, statements)
    const framework = await frameworkFloor()
    const floor = 1 / (1 / client.rate + 1 / framework.rate)
    console.log(`  floor: the service's PostgreSQL client sending those statements from node, ${concurrency} at a time, 10 s: ${(client.rate * batchRecords).toFixed(0)} records/s, its CPU ${client.cpuMs.toFixed(2)} ms per batch`)
    console.log(`  floor: effect/http-api alone decoding the same batches and answering a constant: ${(framework.rate * batchRecords).toFixed(0)} records/s, its CPU ${framework.cpuMs.toFixed(2)} ms per batch`)
    console.log(`  floor ceiling = 1 / (1/client + 1/effect/http-api alone): ${(floor * batchRecords).toFixed(0)} records/s; dispatch serve / floor ceiling: ${((100 * served.rate) / floor).toFixed(1)}%`)
    const floorCpu = client.cpuMs + framework.cpuMs
    console.log(`  CPU per batch: the floors ${floorCpu.toFixed(2)} ms (effect/http-api ${framework.cpuMs.toFixed(2)} + client ${client.cpuMs.toFixed(2)}), dispatch serve ${served.cpuMs.toFixed(2)} ms: ${((100 * floorCpu) / served.cpuMs).toFixed(1)}%`)
    const secret = execFileSync(psql, ["-At", "-c", "select secret from service_keys where name = 'report'", databaseUrl], { encoding: "utf8" }).trim()
    const job = served.jobs[0]
    overhead(served.url, { id: job.id, token: reportToken(secret, job.id) })
    nodeOverhead(served.url, { id: job.id, token: reportToken(secret, job.id) })
  } finally {
    await served.stop()
    rmSync(served.dir, { recursive: true, force: true })
  }
})
