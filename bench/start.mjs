// Start's costs: API calls per Start against the seed's minimum (plain and Kueue, in-process), Start's
// latency through client-node and the simulator's HTTP face as a ratio to one GET in the same run, and
// 1,000 Starts with bounded concurrency over HTTP: p50, p99 and peak memory.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"
import { decodeConfig } from "../packages/render/dist/index.js"
import { Simulator, kubeconfigFor, startSimServer } from "../packages/sim/dist/index.js"
import { Cluster, InFlightMemory, KubeCluster, SimCluster, TrainingRuntimes, openBackend, start } from "../packages/effects/dist/index.js"

// effect is the effects package's dependency, not the workspace root's: resolve it from there.
const fromEffects = createRequire(new URL("../packages/effects/package.json", import.meta.url))
const { Effect, Layer, References } = await import(pathToFileURL(fromEffects.resolve("effect")).href)
// Start logs each step; the bench measures, so only warnings are printed.
const quiet = (effect) => Effect.provideService(effect, References.MinimumLogLevel, "Warn")

const namespace = "default"
const runtime = {
  apiVersion: "trainer.kubeflow.org/v1alpha1",
  kind: "ClusterTrainingRuntime",
  metadata: { name: "torch-distributed", labels: { "trainer.kubeflow.org/framework": "torch" } },
  spec: {
    mlPolicy: { numNodes: 1, torch: {} },
    template: { spec: { replicatedJobs: [{ name: "node", template: { metadata: { labels: { "trainer.kubeflow.org/trainjob-ancestor-step": "trainer" } }, spec: { template: { spec: { containers: [{ name: "node", image: "example.org/train:1" }] } } } } }] } }
  }
}

const configOf = (mode) => {
  const decoded = decodeConfig({
    namespace,
    mode,
    runtimes: [{ kind: "ClusterTrainingRuntime", name: "torch-distributed" }],
    ...(mode === "kueue" ? { kueue: { queue: "team-queue", admissionCheck: "dispatch-check" } } : {}),
    timeouts: { call: 10, workload: 30, callBound: 60 }
  })
  if (decoded._tag !== "Success") throw new Error(JSON.stringify(decoded))
  return decoded.success
}

// Canonical ULIDs: "01J" and 23 Crockford digits.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
const jobId = (n) => `01J${[...n.toString(32).padStart(23, "0")].map((d) => crockford[parseInt(d, 32)]).join("")}`
const requestOf = (n) => ({
  job: jobId(n),
  generation: 0,
  submission: 1,
  attempt: 1,
  spec: {
    command: ["python", "train.py"],
    env: {},
    nodes: 1,
    extensions: { "dispatch/Image": { ref: "example.org/train:1" }, "kubeflow/RuntimeRef": { kind: "ClusterTrainingRuntime", name: "torch-distributed" } }
  }
})

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
const ms = (x) => `${x.toFixed(2)} ms`

// 1. Calls per Start, in-process (live clock: the simulated Kueue makes the Workload at its next step).
const callsPerStart = async (mode) => {
  const simulator = new Simulator({
    seed: 1,
    objects: [runtime],
    ...(mode === "kueue" ? { controllers: { kueue: { queues: { "team-queue": { admissionChecks: ["dispatch-check"] } } } } } : {})
  })
  let calls = 0
  let creates = 0
  const handle = (request) => {
    calls++
    const outcome = simulator.handle(request)
    if (request.verb === "create" && outcome.kind === "answered" && outcome.response.code < 300) creates++
    return outcome
  }
  const face = { handle, now: () => simulator.now(), advanceTo: (t) => simulator.advanceTo(t) }
  const config = configOf(mode)
  const layer = Layer.merge(SimCluster(face, { callMs: config.timeouts.callMs }), InFlightMemory)
  const runs = 20
  for (let i = 0; i < runs; i++) await Effect.runPromise(quiet(start(openBackend(config), requestOf(i + 1))).pipe(Effect.provide(layer)))
  const first = calls / runs
  const before = { calls, creates }
  await Effect.runPromise(quiet(start(openBackend(config), requestOf(1))).pipe(Effect.provide(layer)))
  return { first, retry: calls - before.calls, retryCreates: creates - before.creates }
}

const minimum = { plain: 5, kueue: 6 }
for (const mode of ["plain", "kueue"]) {
  const { first, retry, retryCreates } = await callsPerStart(mode)
  console.log(`calls per Start (${mode}): ${first.toFixed(2)} (seed's minimum ${minimum[mode]}); retry after success: ${retry} calls, ${retryCreates} objects created`)
}

// 2 and 3. Over HTTP: the simulator server and client-node.
const dir = mkdtempSync(join(tmpdir(), "dispatch-bench-"))
const simulator = new Simulator({ seed: 2, objects: [runtime] })
// Plain-mode Start needs no controller, and the simulator's ticker reconciles every stored object on each
// tick; at the default 100 ms it dominates with 1,000 jobs stored. BENCH_TICK_MS=100 measures that too.
const tickMs = Number(process.env.BENCH_TICK_MS ?? 1_000)
const server = await startSimServer({ simulator, tickMs })
const kubeconfigPath = join(dir, "kubeconfig")
writeFileSync(kubeconfigPath, kubeconfigFor(server))
const config = configOf("plain")
const layer = Layer.merge(KubeCluster({ kubeconfigPath, callMs: config.timeouts.callMs }), InFlightMemory)
const run = (effect) => Effect.runPromise(quiet(effect).pipe(Effect.provide(layer)))
const timed = async (f) => {
  const t0 = performance.now()
  await f()
  return performance.now() - t0
}

try {
  const get = Effect.gen(function* () {
    const cluster = yield* Cluster
    return yield* cluster.get(TrainingRuntimes, { namespace, name: "absent-on-purpose" }).pipe(Effect.orElseSucceed(() => undefined))
  })
  for (let i = 0; i < 50; i++) await run(get)
  const gets = []
  const starts = []
  for (let i = 0; i < 200; i++) {
    gets.push(await timed(() => run(get)))
    starts.push(await timed(() => run(start(openBackend(config), requestOf(10_000 + i)))))
  }
  gets.sort((a, b) => a - b)
  starts.sort((a, b) => a - b)
  const getP50 = quantile(gets, 0.5)
  const startP50 = quantile(starts, 0.5)
  console.log(`one GET over HTTP: p50 ${ms(getP50)}; one Start: p50 ${ms(startP50)}; ratio ${(startP50 / getP50).toFixed(2)} (a plain Start makes 5 calls)`)

  const total = Number(process.env.BENCH_STARTS ?? 1_000)
  const concurrency = 32
  const latencies = []
  let peakHeap = 0
  let peakRss = 0
  const sample = () => {
    const m = process.memoryUsage()
    peakHeap = Math.max(peakHeap, m.heapUsed)
    peakRss = Math.max(peakRss, m.rss)
  }
  globalThis.gc?.()
  const baseHeap = process.memoryUsage().heapUsed
  const sampler = setInterval(sample, 20)
  const t0 = performance.now()
  let failures = 0
  await run(
    Effect.forEach(
      Array.from({ length: total }, (_, i) => i),
      (i) =>
        Effect.gen(function* () {
          const started = performance.now()
          yield* start(openBackend(config), requestOf(100_000 + i)).pipe(
            Effect.catch((error) =>
              Effect.sync(() => {
                failures++
                if (process.env.BENCH_DEBUG !== undefined) console.log(error._tag, error.reasons)
              })
            )
          )
          latencies.push(performance.now() - started)
        }),
      { concurrency, discard: true }
    )
  )
  const wall = performance.now() - t0
  clearInterval(sampler)
  sample()
  latencies.sort((a, b) => a - b)
  console.log(
    `${total} Starts over HTTP (simulator ticker ${tickMs} ms), concurrency ${concurrency}: ${(wall / 1000).toFixed(2)} s, ${(total / (wall / 1000)).toFixed(0)} Starts/s, ` +
      `p50 ${ms(quantile(latencies, 0.5))}, p99 ${ms(quantile(latencies, 0.99))}, failures ${failures}`
  )
  console.log(`peak heap ${(peakHeap / 2 ** 20).toFixed(1)} MiB (${((peakHeap - baseHeap) / 2 ** 20).toFixed(1)} MiB above the start, simulator included), peak rss ${(peakRss / 2 ** 20).toFixed(1)} MiB`)
} finally {
  await server.close()
  rmSync(dir, { recursive: true, force: true })
}
