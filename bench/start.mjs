// Start's costs: API calls per Start against the seed's minimum (plain and Kueue, in-process), Start's
// latency through client-node and the simulator's HTTP face as a ratio to one GET in the same run, and
// 1,000 Starts with bounded concurrency over HTTP: p50, p99, peak memory, and the API calls per second
// they drive against the simulator's own GET rate on the same server in the same run. That ratio is the
// bench's target (at least 0.5: Start's throughput is bound by the API server, not by the client side);
// below it the bench exits 1. Each round also sends the same five calls per Start from a raw node:http
// client: the ratio's ceiling on this server, whatever the client costs, and Start's rate as a share of it
// (1 when Start is bound by the server alone).
//
// Over HTTP the simulator runs in its own process (bench/lib/sim-process.mjs), as an API server would: in
// one process the client and the server would share one JavaScript thread, and every microsecond of
// either would count against both figures. The GET rate is measured with raw node:http (keep-alive, the
// same concurrency) rather than through KubeCluster, so it is the server's rate and not our client's: any
// cost client-node, the Effect layer or Start add per call shows in the ratio instead of being divided out.
import { fork } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { Agent, request } from "node:http"
import { tmpdir } from "node:os"
import { getHeapStatistics } from "node:v8"
import { join } from "node:path"
import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"
import { decodeConfig, decodeStartRequest, renderStart } from "../packages/render/dist/index.js"
import { Simulator, kubeconfigFor } from "../packages/sim/dist/index.js"
import { Cluster, InFlightMemory, KubeCluster, TrainingRuntimes, openBackend, start } from "../packages/effects/dist/index.js"
import { SimCluster } from "../packages/sim/dist/cluster/SimCluster.js"

// effect is the effects package's dependency, not the workspace root's: resolve it from there.
const fromEffects = createRequire(new URL("../packages/effects/package.json", import.meta.url))
const { Effect, Layer, ManagedRuntime, References } = await import(pathToFileURL(fromEffects.resolve("effect")).href)
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

// 2 and 3. Over HTTP: the simulator server in its own process, and client-node here.
const dir = mkdtempSync(join(tmpdir(), "dispatch-bench-"))
// Plain-mode Start needs no controller, and the simulator's ticker reconciles every stored object on each
// tick; at the default 100 ms it dominates with 1,000 jobs stored. BENCH_TICK_MS=100 measures that too.
const tickMs = Number(process.env.BENCH_TICK_MS ?? 1_000)
const simProcess = fork(new URL("./lib/sim-process.mjs", import.meta.url))
const fromSim = (wanted) => new Promise((resolve) => simProcess.once("message", resolve)).then((message) => message[wanted])
// BENCH_CONTROLLERS=off runs the simulator without Trainer's webhook and controllers (nor the JobSet and Job
// controllers under them), to tell their share of the server's cost from the API server's own.
const controllersOff = process.env.BENCH_CONTROLLERS === "off"
simProcess.send({ simulatorOptions: { seed: 2, objects: [runtime], ...(controllersOff ? { controllers: { trainer: { installed: false } } } : {}) }, tickMs })
const server = { url: await fromSim("url") }
// The API calls the server has served so far, and its CPU time (µs).
const serverCount = () => {
  const answer = new Promise((resolve) => simProcess.once("message", resolve))
  simProcess.send("calls")
  return answer.then(({ calls, cpu }) => ({ calls, cpu: cpu.user + cpu.system }))
}
const cpuNow = () => {
  const { user, system } = process.cpuUsage()
  return user + system
}
const kubeconfigPath = join(dir, "kubeconfig")
writeFileSync(kubeconfigPath, kubeconfigFor(server))
const config = configOf("plain")
// One KubeCluster for the whole run, as a service holds one: its connections are reused across calls.
const clientRuntime = ManagedRuntime.make(Layer.merge(KubeCluster({ kubeconfigPath, callMs: config.timeouts.callMs }), InFlightMemory))
const run = (effect) => clientRuntime.runPromise(quiet(effect))
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

  // The simulator's own GET rate: raw GETs of the runtime Start reads, from `concurrency` loops.
  const getAgent = new Agent({ keepAlive: true })
  const runtimePath = "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/torch-distributed"
  const rawGet = () =>
    new Promise((resolve, reject) => {
      const req = request(`${server.url}${runtimePath}`, { agent: getAgent }, (res) => {
        res.resume()
        res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`GET answered ${res.statusCode}`))))
      })
      req.on("error", reject)
      req.end()
    })
  const simGets = async (count) => {
    let sent = 0
    const before = await serverCount()
    const cpu0 = cpuNow()
    const t0 = performance.now()
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (sent < count) {
        sent++
        await rawGet()
      }
    }))
    const seconds = (performance.now() - t0) / 1000
    const after = await serverCount()
    return { perSecond: count / seconds, serverCpu: (after.cpu - before.cpu) / count, clientCpu: (cpuNow() - cpu0) / count }
  }
  const getCount = Number(process.env.BENCH_GETS ?? 5_000)
  // Runs the simulator's controllers until they have caught up (see bench/lib/sim-process.mjs).
  const settleNow = () => {
    const answer = fromSim("settled")
    simProcess.send("settle")
    return answer
  }

  // The ratio's ceiling on this server: Start's five calls of a plain Start (read the runtime, create the
  // copy and the TrainJob, own the copy, read back), rendered beforehand and sent in order by raw node:http
  // from the same `concurrency` loops, so next to nothing is spent on the client side.
  const rawCall = (method, path, body) =>
    new Promise((resolve, reject) => {
      const headers = { Accept: "application/json, */*;q=0.8", ...(body === undefined ? {} : { "Content-Type": method === "PATCH" ? "application/merge-patch+json" : "application/json" }) }
      const req = request(`${server.url}${path}`, { method, agent: getAgent, headers }, (res) => {
        const chunks = []
        res.on("data", (chunk) => chunks.push(chunk))
        res.on("end", () => (res.statusCode < 300 ? resolve(JSON.parse(Buffer.concat(chunks).toString("utf8"))) : reject(new Error(`${method} ${path} answered ${res.statusCode}`))))
      })
      req.on("error", reject)
      req.end(body === undefined ? undefined : JSON.stringify(body))
    })
  const namespacePath = `/apis/trainer.kubeflow.org/v1alpha1/namespaces/${namespace}`
  const fiveCalls = async (manifests) => {
    await rawCall("GET", runtimePath)
    const copy = await rawCall("POST", `${namespacePath}/trainingruntimes`, manifests.runtimeCopy)
    const job = await rawCall("POST", `${namespacePath}/trainjobs`, manifests.trainJob)
    const owner = { apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", name: manifests.name, uid: job.metadata.uid, controller: true }
    await rawCall("PATCH", `${namespacePath}/trainingruntimes/${manifests.name}`, { metadata: { ownerReferences: [owner], resourceVersion: copy.metadata.resourceVersion } })
    await rawCall("GET", `${namespacePath}/trainjobs/${manifests.name}`)
  }
  const renderedFrom = (first) =>
    Array.from({ length: total }, (_, i) => {
      const manifests = renderStart(decodeStartRequest(requestOf(first + i)).success, config, runtime)
      if (manifests._tag !== "Success") throw new Error(JSON.stringify(manifests))
      return manifests.success
    })

  let peakHeap = 0
  let peakRss = 0
  // The heap is sampled often and cheaply (V8's own figures); the RSS, which the OS is asked for, ten times less
  // often: the sampler runs on the measured thread, and must not add to the CPU per call it measures.
  let samples = 0
  const sample = () => {
    peakHeap = Math.max(peakHeap, getHeapStatistics().used_heap_size)
    if (samples++ % 10 === 0) peakRss = Math.max(peakRss, process.memoryUsage.rss())
  }
  globalThis.gc?.()
  const baseHeap = getHeapStatistics().used_heap_size

  // A burst of calls on the server: its wall time runs until the simulator's controllers have done the work
  // the burst gave them (a plain Start needs none of it, but the simulator does it in the same process, on the
  // same core), so that work counts against the burst, and what is measured next starts from a simulator with
  // nothing left over.
  const burst = async (send) => {
    await settleNow()
    const served0 = await serverCount()
    const cpu0 = cpuNow()
    const t0 = performance.now()
    await send()
    const clientCpu = cpuNow() - cpu0
    await settleNow()
    const wall = performance.now() - t0
    const served = await serverCount()
    const calls = served.calls - served0.calls
    return { wall, calls, perSecond: calls / (wall / 1000), clientCpu: clientCpu / calls, serverCpu: (served.cpu - served0.cpu) / calls }
  }

  // One round: the GET rate, `total` Starts through our client, the same calls from raw node:http, the GET
  // rate again. The machine may be busy with other work: the ratio uses the mean of the GET rates just before
  // and just after.
  const round = async (first) => {
    await settleNow()
    const getsBefore = await simGets(getCount)
    const latencies = []
    let failures = 0
    const sampler = setInterval(sample, 20)
    const starts = await burst(() =>
      run(
        Effect.forEach(
          Array.from({ length: total }, (_, i) => first + i),
          (n) =>
            Effect.gen(function* () {
              const started = performance.now()
              yield* start(openBackend(config), requestOf(n)).pipe(
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
    )
    clearInterval(sampler)
    const rendered = renderedFrom(first + total)
    let next = 0
    const raw = await burst(() =>
      Promise.all(Array.from({ length: concurrency }, async () => {
        while (next < total) await fiveCalls(rendered[next++])
      }))
    )
    const getsAfter = await simGets(getCount)
    const getPerSecond = (getsBefore.perSecond + getsAfter.perSecond) / 2
    return { starts, raw, failures, latencies, getsBefore, getsAfter, getPerSecond, ratio: starts.perSecond / getPerSecond, ceiling: raw.perSecond / getPerSecond, ofCeiling: starts.perSecond / raw.perSecond }
  }

  // A warm-up round first, unmeasured: a service runs Start many times, so what is measured is Start's steady
  // state, with the GET path, Start's path and the server's write path compiled by the JIT (the first 1,000
  // Starts of a process run at about half the later rate). Then `rounds` measured rounds, each figure their median.
  await simGets(getCount)
  await round(100_000)
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
  const measured = []
  for (let r = 0; r < rounds; r++) measured.push(await round(200_000 + r * 2 * total))
  samples = 0
  sample()
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
  const latencies = measured.flatMap((m) => m.latencies).sort((a, b) => a - b)
  const failures = measured.reduce((sum, m) => sum + m.failures, 0)
  const wall = median(measured.map((m) => m.starts.wall))
  const ratio = median(measured.map((m) => m.ratio))
  const per = (f, digits = 0) => measured.map((m) => f(m).toFixed(digits)).join(" / ")
  console.log(
    `${total} Starts over HTTP (simulator ticker ${tickMs} ms${controllersOff ? ", no controllers" : ""}), concurrency ${concurrency}, ${rounds} rounds after a warm-up round: median ${(wall / 1000).toFixed(2)} s, ` +
      `${(total / (wall / 1000)).toFixed(0)} Starts/s, p50 ${ms(quantile(latencies, 0.5))}, p99 ${ms(quantile(latencies, 0.99))}, failures ${failures}`
  )
  console.log(`peak heap ${(peakHeap / 2 ** 20).toFixed(1)} MiB (${((peakHeap - baseHeap) / 2 ** 20).toFixed(1)} MiB above the start, client side), peak rss ${(peakRss / 2 ** 20).toFixed(1)} MiB`)
  console.log(
    `cpu per API call: Starts ${per((m) => m.starts.clientCpu)} µs client + ${per((m) => m.starts.serverCpu)} µs server; ` +
      `the same calls from raw node:http ${per((m) => m.raw.clientCpu)} µs client + ${per((m) => m.raw.serverCpu)} µs server; ` +
      `raw GETs ${per((m) => m.getsBefore.clientCpu)} µs client + ${per((m) => m.getsBefore.serverCpu)} µs server`
  )
  console.log(
    `api calls/s ${per((m) => m.starts.perSecond)} (${(measured[0].starts.calls / total).toFixed(2)} calls per Start); the same calls from raw node:http ${per((m) => m.raw.perSecond)}; ` +
      `sim GET/s ${per((m) => m.getPerSecond)} (raw node:http, concurrency ${concurrency}, mean of ${per((m) => m.getsBefore.perSecond)} before and ${per((m) => m.getsAfter.perSecond)} after)`
  )
  console.log(
    `Start's calls/s ÷ the raw client's on the same server ${per((m) => m.ofCeiling, 2)}: median ${median(measured.map((m) => m.ofCeiling)).toFixed(2)} (1 = bound by the server alone)`
  )
  console.log(`ceiling: the raw client's calls/s ÷ sim GET/s ${per((m) => m.ceiling, 2)}: median ${median(measured.map((m) => m.ceiling)).toFixed(2)}, the most any client reaches on this server`)
  console.log(`ratio: Start's calls/s ÷ sim GET/s ${per((m) => m.ratio, 2)}: median ${ratio.toFixed(2)} (target >= 0.5)`)
  getAgent.destroy()
  if (failures > 0 || ratio < 0.5) process.exitCode = 1
} finally {
  await clientRuntime.dispose()
  simProcess.send("close")
  await new Promise((resolve) => simProcess.once("exit", resolve))
  rmSync(dir, { recursive: true, force: true })
}
