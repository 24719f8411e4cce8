// The whole path: jobs submitted over HTTP to the job service, dispatched through KubeCluster (client-node)
// to the simulator's HTTP face, followed by Find until Trainer runs them. Prints jobs from submission to
// started per second and submission -> started latency percentiles, on embedded PGlite and on PostgreSQL 15
// (started with test/postgres/start.sh; skipped with a note when it is absent).
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { KubeCluster } from "../packages/effects/dist/index.js"
import { hashToken, serve } from "../packages/server/dist/index.js"
import { kubeconfigFor, Simulator, startSimServer } from "../packages/sim/dist/index.js"
import { Layer } from "effect"
import { typedCaller } from "./lib/api.mjs"
import { withPostgres } from "./lib/postgres.mjs"
import { dioptraTorch } from "./lib/sim-runtime.mjs"

const jobs = 300
const concurrency = 16
const token = randomBytes(24).toString("hex")
const tokens = [{ name: "bench", group: "bench", access: "write", tokenHash: hashToken(token, randomBytes(16)) }]
const namespace = "ml"
const { ref: runtime, manifest: torchRuntime } = dioptraTorch(namespace)

const call = typedCaller(token)

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]

const measure = async (label, database) => {
  const deadline = performance.now() + 50_000
  // Runs last long enough that every job is still running when the last one starts.
  const simulator = new Simulator({ objects: [torchRuntime], controllers: { trainer: { runTimeMs: 3_600_000 } } })
  const simServer = await startSimServer({ simulator, tickMs: 20 })
  const dir = mkdtempSync(join(tmpdir(), "dispatch-bench-"))
  writeFileSync(join(dir, "kubeconfig"), kubeconfigFor(simServer))
  const started = await serve({
    tokens,
    ...database,
    dispatch: { cluster: Layer.orDie(KubeCluster({ kubeconfigPath: join(dir, "kubeconfig"), callMs: 5000 })), concurrency, pollMs: 20 }
  })
  if (started._tag === "Failure") throw new Error(started.failure.message)
  const server = started.success
  try {
    const url = server.url
    const queue = await call(url, (c) =>
      c.queues.create({
        payload: {
          name: "sim",
          backend: { config: { namespace, mode: "plain", runtimes: [runtime], timeouts: { call: "5s", workload: "5s", callBound: "10s" } }, runtime, image: "example/worker:1" }
        }
      })
    )
    const entrypoint = await call(url, (c) =>
      c.entrypoints.create({ payload: { name: "train", queues: [queue.id], parameters: [{ name: "epochs", type: "integer", defaultValue: "3" }], taskGraph: { train: { train: { epochs: "$epochs" } } }, command: ["python", "train.py"] } })
    )
    const experiment = await call(url, (c) => c.experiments.create({ payload: { name: "bench", entrypoints: [entrypoint.id] } }))
    // The timings start once the queue is proven: its probe is not part of dispatching.
    const proving = new Set(["unproven", "proving"])
    while (proving.has((await call(url, (c) => c.queues.read({ params: { id: queue.id } }))).gate.state) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20))

    const submittedAt = new Map()
    const startedAt = new Map()
    const t0 = performance.now()
    for (let i = 0; i < jobs; i += 50) {
      const batch = await Promise.all(Array.from({ length: Math.min(50, jobs - i) }, () => call(url, (c) => c.jobs.create({ params: { id: experiment.id }, payload: { entrypoint: entrypoint.id, queue: queue.id } }))))
      for (const job of batch) submittedAt.set(job.id, performance.now())
    }
    const submitted = performance.now()
    // Polled every 100 ms: listing every job is itself a load on the service, so the figures are good to ~0.1 s.
    while (startedAt.size < jobs && performance.now() < deadline) {
      for (let index = 0; index < jobs; index += 100) {
        const page = await call(url, (c) => c.jobs.listInExperiment({ params: { id: experiment.id }, query: { search: "started", pageLength: 100, index } }))
        for (const job of page.data) if (!startedAt.has(job.id)) startedAt.set(job.id, performance.now())
        if (page.data.length < 100) break
      }
      await new Promise((r) => setTimeout(r, 100))
    }
    const elapsed = (performance.now() - t0) / 1000
    const latencies = [...startedAt].map(([id, at]) => at - submittedAt.get(id)).sort((a, b) => a - b)
    console.log(`${label}: ${startedAt.size}/${jobs} jobs submitted -> started in ${elapsed.toFixed(2)} s (submitting took ${((submitted - t0) / 1000).toFixed(2)} s)`)
    console.log(`${label}: ${(startedAt.size / elapsed).toFixed(1)} jobs/s from submission to started, concurrency ${concurrency}, KubeCluster over HTTP to the simulator`)
    console.log(`${label}: submission -> started latency p50 ${percentile(latencies, 50)?.toFixed(0)} ms, p99 ${percentile(latencies, 99)?.toFixed(0)} ms`)
    if (startedAt.size < jobs) process.exitCode = 1
  } finally {
    await server.close()
    await simServer.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

await measure("PGlite (in memory)", {})

await withPostgres((databaseUrl) => measure("PostgreSQL 15 (loopback, pool of 10)", { databaseUrl }))
