// The job service under load: job creations per second and latency percentiles over real HTTP, on embedded
// PGlite and on PostgreSQL 15 (DATABASE_URL's server, else one started with test/postgres/start.sh; skipped
// with a note when there is none). On PostgreSQL the creation rate is set beside the raw INSERT rate of a
// job-sized row into the same server (pgbench, as many clients as requests in flight): the target is >= 30%.
// Beside it, the ceiling: a bare node:http server answering the same request with a constant, same client
// (node:http with kept-alive connections, in this process like the service).
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import { performance } from "node:perf_hooks"
import { hashToken, serve } from "../packages/server/dist/index.js"
import { apiCaller, typedCaller } from "./lib/api.mjs"
import { rawInsertRate } from "./lib/pgbench.mjs"
import { withPostgres } from "./lib/postgres.mjs"

const token = randomBytes(24).toString("hex")
const tokens = [{ name: "bench", group: "bench", access: "write", tokenHash: hashToken(token, randomBytes(16)) }]
const creations = 1000
const concurrency = 16
// Each measurement stops after this long even when not every creation was made (a loaded machine).
const budgetMs = 30_000

const call = apiCaller(token)
const typed = typedCaller(token)

const runtime = { kind: "TrainingRuntime", name: "dioptra-torch" }

const world = async (url) => {
  const queue = await typed(url, (c) => c.queues.create({ payload: { name: "gpu", backend: { config: { namespace: "ml", mode: "plain", runtimes: [runtime] }, runtime, image: "example/worker:1" } } }))
  const entrypoint = await typed(url, (c) => c.entrypoints.create({ payload: {
    name: "train",
    queues: [queue.id],
    parameters: [
      { name: "epochs", type: "integer", defaultValue: "3" },
      { name: "lr", type: "float", defaultValue: "0.01" }
    ],
    taskGraph: { train: { "?method": { a: { train_a: { epochs: "$epochs" } }, b: { train_b: { lr: "$lr" } } } } },
    command: ["python", "run.py"]
  } }))
  const experiment = await typed(url, (c) => c.experiments.create({ payload: { name: "bench", entrypoints: [entrypoint.id] } }))
  return { queue: queue.id, entrypoint: entrypoint.id, experiment: experiment.id }
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]

// Runs `once(i)` `creations` times, `concurrency` at a time, within the budget; returns each call's latency, the
// wall seconds and this process's CPU milliseconds (server and client together: both run here).
const drive = async (once) => {
  const latencies = []
  let next = 0
  const cpu = process.cpuUsage()
  const start = performance.now()
  const deadline = start + budgetMs
  const worker = async () => {
    while (next < creations && performance.now() < deadline) {
      const i = next++
      const t0 = performance.now()
      await once(i)
      latencies.push(performance.now() - t0)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const used = process.cpuUsage(cpu)
  return { latencies, seconds: (performance.now() - start) / 1000, cpuMs: (used.user + used.system) / 1000 }
}

const measure = async (label, options) => {
  const started = await serve({ tokens, ...options })
  if (started._tag !== "Success") throw new Error(started.failure.message)
  const server = started.success
  try {
    const w = await world(server.url)
    const body = (i) => ({ entrypoint: w.entrypoint, queue: w.queue, values: { epochs: String(i % 50) }, swaps: { method: "a" }, timeout: "2h", description: `bench ${i}` })
    for (let i = 0; i < 20; i++) await call(server.url, "POST", `/experiments/${w.experiment}/jobs`, body(i))
    const { latencies, seconds, cpuMs } = await drive((i) => call(server.url, "POST", `/experiments/${w.experiment}/jobs`, body(i)))
    const sorted = [...latencies].sort((a, b) => a - b)
    console.log(
      `${label}: ${latencies.length} job creations, ${concurrency} in flight: ${(latencies.length / seconds).toFixed(0)} creations/s, ` +
        `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted.at(-1).toFixed(1)} ms; ` +
        `CPU of this process (service and client) ${(cpuMs / latencies.length).toFixed(2)} ms per creation`
    )
    return latencies.length / seconds
  } finally {
    await server.close()
  }
}

// The ceiling of any service in this process: a bare node:http server that answers the same request with a
// constant job, driven by the same client. No job service here reaches more than this, whatever its database does.
const bareHttpRate = async () => {
  const answer = JSON.stringify({ id: 1, status: "queued", description: "bench" })
  const server = createServer((request, response) => {
    request.resume()
    request.on("end", () => response.writeHead(200, { "content-type": "application/json" }).end(answer))
  })
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${server.address().port}`
  try {
    const { latencies, seconds, cpuMs } = await drive(() => call(url, "POST", "/experiments/1/jobs", { entrypoint: 1, queue: 1, values: {}, description: "bench" }))
    console.log(`bare node:http answering a constant job, same client, ${concurrency} in flight: ${(latencies.length / seconds).toFixed(0)} answers/s, CPU ${(cpuMs / latencies.length).toFixed(2)} ms per answer`)
    return latencies.length / seconds
  } finally {
    server.close()
  }
}

await measure("PGlite (in memory)", {})

await withPostgres(async (databaseUrl) => {
  const creationRate = await measure("PostgreSQL 15 (loopback)", { databaseUrl })
  const rawRate = rawInsertRate(databaseUrl, concurrency, 10)
  console.log(`PostgreSQL 15 raw INSERT of a job-sized row (pgbench, ${concurrency} clients, 10 s): ${rawRate.toFixed(0)} INSERTs/s`)
  const ratio = creationRate / rawRate
  console.log(`creations over HTTP / raw INSERTs: ${(100 * ratio).toFixed(1)}% (target >= 30%: ${ratio >= 0.3 ? "met" : "NOT met"})`)
  const ceiling = (await bareHttpRate()) / rawRate
  console.log(`ceiling: bare node:http answers / raw INSERTs: ${(100 * ceiling).toFixed(1)}%`)
})
