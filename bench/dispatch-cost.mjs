// The job service's cost as its work grows: N jobs queued on a queue with no backend, then the queue given one (the
// simulator's HTTP face, its controllers on, each run finishing 200 ms of simulated time after it starts), and the
// `dispatch serve` process's CPU from then until every job has ended, per job ended, at a small and at a ten times
// larger N on a fresh PostgreSQL database each. Target: CPU per job at the larger N <= 1.5x that at the smaller.
// The service runs in a process of its own (its CPU read from /proc); the simulator and the client run here. Ended
// jobs are counted with psql, not through the service, so counting costs the service nothing.
// DISPATCH_BENCH_COST_SIZES=1000,10000 runs the sizes the target names; the default is 100,1000, since on the loaded
// development machine 1,000 jobs took 3 minutes to end and 10,000 took 14 (2 of them submitting).
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { serveReadyLine } from "../packages/cli/dist/commands/ServeReady.js"
import { hashToken } from "../packages/server/dist/index.js"
import { kubeconfigFor, Simulator, startSimServer } from "../packages/sim/dist/index.js"
import { apiCaller, typedCaller } from "./lib/api.mjs"
import { withPostgres } from "./lib/postgres.mjs"
import { dioptraTorch } from "./lib/sim-runtime.mjs"
import { child, processCpuMs } from "./lib/process.mjs"

const sizes = (process.env.DISPATCH_BENCH_COST_SIZES ?? "100,1000").split(",").map(Number)
const targetRatio = 1.5
const concurrency = 16
const budgetMs = Number(process.env.DISPATCH_BENCH_COST_BUDGET_MS ?? 1_800_000)
const namespace = "ml"
const { ref: runtime, manifest: torchRuntime } = dioptraTorch(namespace)
const psql = join(process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin", "psql")
const ended = (databaseUrl) => Number(execFileSync(psql, ["-Atqc", "select count(*) from jobs where status in ('finished', 'failed')", databaseUrl], { encoding: "utf8" }).trim())

const perJob = []

const measure = (jobs) =>
  withPostgres(async (databaseUrl) => {
    const token = randomBytes(24).toString("hex")
    const simulator = new Simulator({ objects: [torchRuntime], controllers: { trainer: { runTimeMs: 200 } } })
    const simServer = await startSimServer({ simulator, tickMs: 20 })
    const dir = mkdtempSync(join(tmpdir(), "dispatch-bench-cost-"))
    writeFileSync(join(dir, "kubeconfig"), kubeconfigFor(simServer))
    writeFileSync(join(dir, "tokens.json"), JSON.stringify([{ name: "bench", group: "bench", access: "write", tokenHash: hashToken(token, randomBytes(16)) }]))
    const cli = new URL("../packages/cli/bin/dispatch.js", import.meta.url).pathname
    const servingLine = new RegExp(`^${serveReadyLine}`, "m")
    const served = await child([cli, "serve", "--port", "0", "--tokens", join(dir, "tokens.json"), "--kubeconfig", join(dir, "kubeconfig"), "--log-format", "json"], { DATABASE_URL: databaseUrl }, (out, err) =>
      servingLine.test(err) ? /^(http:\/\/127\.0\.0\.1:\d+)\/api\/v1$/m.exec(out)?.[1] : undefined
    )
    try {
      const url = served.value
      const typed = (program) => typedCaller(token)(url, program)
      const call = apiCaller(token)
      const queue = await typed((c) => c.queues.create({ payload: { name: "sim" } }))
      const entrypoint = await typed((c) =>
        c.entrypoints.create({ payload: { name: "train", queues: [queue.id], parameters: [], taskGraph: { train: { train: {} } }, command: ["python", "train.py"] } })
      )
      const experiment = await typed((c) => c.experiments.create({ payload: { name: "bench", entrypoints: [entrypoint.id] } }))
      const submitStart = performance.now()
      let next = 0
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < jobs) {
            next++
            await call(url, "POST", `/experiments/${experiment.id}/jobs`, { entrypoint: entrypoint.id, queue: queue.id })
          }
        })
      )
      const submitSeconds = (performance.now() - submitStart) / 1000
      // Queued and waiting: the queue has no backend yet. From here, the service's CPU is the dispatching's.
      const cpuBefore = processCpuMs(served.process.pid)
      const t0 = performance.now()
      await typed((c) =>
        c.queues.modify({
          params: { id: queue.id },
          payload: { name: "sim", backend: { config: { namespace, mode: "plain", runtimes: [runtime], timeouts: { call: "5s", workload: "5s", callBound: "10s" } }, runtime, image: "example/worker:1" } }
        })
      )
      let done = 0
      while ((done = ended(databaseUrl)) < jobs && performance.now() - t0 < budgetMs) await new Promise((r) => setTimeout(r, 500))
      const seconds = (performance.now() - t0) / 1000
      const cpuMs = processCpuMs(served.process.pid) - cpuBefore
      console.log(
        `${jobs} queued jobs (submitted in ${submitSeconds.toFixed(1)} s): ${done} ended in ${seconds.toFixed(1)} s after their queue got its backend ` +
          `(${(done / seconds).toFixed(1)} jobs/s); dispatch serve's CPU ${(cpuMs / 1000).toFixed(1)} s, ${(cpuMs / Math.max(1, done)).toFixed(2)} ms per job`
      )
      if (done < jobs) console.log(`  NOT every job ended within ${budgetMs / 1000} s: the figure is over the ${done} that did`)
      perJob.push({ jobs, msPerJob: cpuMs / Math.max(1, done) })
    } finally {
      await served.stop()
      await simServer.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })

for (const jobs of sizes) await measure(jobs)
if (perJob.length === 2) {
  const [small, large] = perJob
  const ratio = large.msPerJob / small.msPerJob
  console.log(
    `dispatch serve's CPU per job: ${small.msPerJob.toFixed(2)} ms at ${small.jobs} jobs, ${large.msPerJob.toFixed(2)} ms at ${large.jobs}; ratio ${ratio.toFixed(2)} ` +
      `(target <= ${targetRatio}: ${ratio <= targetRatio ? "met" : "NOT met"}${small.jobs === 1000 && large.jobs === 10000 ? "" : `; the target names 1,000 and 10,000 jobs: DISPATCH_BENCH_COST_SIZES=1000,10000`})`
  )
}
