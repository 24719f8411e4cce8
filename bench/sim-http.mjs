// Requests per second of the simulator's HTTP face on loopback, for get and create, with 1k and 100k
// objects stored (seeded through the in-process face), and heap per stored object. Each size runs
// twice: with the clock still (the HTTP face and the store alone) and with the default 100 ms ticker
// (each tick runs the simulator's per-step work, which grows with the store). Each phase is bounded
// by a request count and a time budget, so the whole run stays near 30 s.
import { Agent, request } from "node:http"
import { Simulator, startSimServer } from "../packages/sim/dist/index.js"
import { benchRuntime } from "./lib/sim-runtime.mjs"

const sizes = [1_000, 100_000]
const concurrency = 8
const maxRequests = 4_000
const budgetMs = 2_500
const jobs = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs"

const runtime = benchRuntime
const job = (name) => ({
  apiVersion: "trainer.kubeflow.org/v1alpha1",
  kind: "TrainJob",
  metadata: { name, labels: { bench: "yes" } },
  spec: { runtimeRef: { name: "torch-distributed" }, suspend: true }
})

const heapUsed = () => {
  globalThis.gc?.()
  return process.memoryUsage().heapUsed
}

const send = (agent, url, method, path, body) =>
  new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, agent, headers: { "Content-Type": "application/json" } }, (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode))
    })
    req.on("error", reject)
    req.end(body)
  })

// Runs `next(i)` from `concurrency` loops until maxRequests are sent or the budget is spent.
const measure = async (label, next) => {
  let sent = 0
  let failed = 0
  const start = performance.now()
  const loop = async () => {
    while (sent < maxRequests && performance.now() - start < budgetMs) {
      const status = await next(sent++)
      if (status >= 300) failed++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, loop))
  const seconds = (performance.now() - start) / 1000
  console.log(`${label.padEnd(28)} ${String(Math.round(sent / seconds)).padStart(7)} req/s  (${sent} requests in ${seconds.toFixed(2)} s${failed > 0 ? `, ${failed} failed` : ""})`)
}

for (const size of sizes) {
  const before = heapUsed()
  // No controllers: the figures are the HTTP face and the store, not Trainer reconciling every job.
  const simulator = new Simulator({ objects: [runtime], controllers: { trainer: { installed: false } } })
  const seedStart = performance.now()
  for (let i = 0; i < size; i++) {
    const outcome = simulator.handle({ verb: "create", group: "trainer.kubeflow.org", version: "v1alpha1", resource: "trainjobs", namespace: "default", body: job(`seed-${i}`) })
    if (outcome.kind !== "answered" || outcome.response.code !== 201) throw new Error(`seeding failed at ${i}: ${JSON.stringify(outcome)}`)
  }
  const seedSeconds = (performance.now() - seedStart) / 1000
  const perObject = (heapUsed() - before) / size
  console.log(`\n${size} stored TrainJobs: seeded in ${seedSeconds.toFixed(1)} s in-process, ~${Math.round(perObject)} bytes of heap per object`)

  for (const [clock, tickMs] of [["clock still", 3_600_000], ["100 ms ticker", 100]]) {
    const server = await startSimServer({ simulator, tickMs })
    const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
    try {
      await measure(`get, ${clock}`, (i) => send(agent, server.url, "GET", `${jobs}/seed-${(i * 7919) % size}`))
      await measure(`create, ${clock}`, (i) => send(agent, server.url, "POST", jobs, JSON.stringify(job(`bench-${tickMs}-${i}`))))
    } finally {
      agent.destroy()
      await server.close()
    }
  }
}
