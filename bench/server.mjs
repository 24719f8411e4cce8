// The job service under load: job creations per second and latency percentiles over real HTTP, on embedded
// PGlite and on PostgreSQL 15 (DATABASE_URL's server, else one started with test/postgres/start.sh; skipped
// with a note when there is none). On PostgreSQL the rate of `dispatch serve` in a process of its own, 16 requests in
// flight, is set against its ceiling measured in the same run: both a database and an HTTP server must do their
// part of every request on the same cores, so ceiling = 1 / (1/replay + 1/bare), where replay is pgbench sending
// exactly the statements one request sends (captured from the service, 16 clients, prepared as the service prepares
// them) and bare is a bare node:http server in a process of its own answering the same request with a constant,
// driven by the same client (this process's node:http client with kept-alive connections). Target: >= 50%, for job
// creations and for metric appends (16 jobs, each posting its loss at every step, one post at a time). The raw
// INSERT rate of a job-sized row (pgbench) is printed beside them as a yardstick. Neither pgbench nor bare node:http
// is what the service is built on, so beside that ceiling the bench measures the floors: the service's own
// PostgreSQL client sending the same statements from node (bench/lib/client-replay.mjs), the service's HTTP stack
// answering the same requests with a constant (bench/lib/constant-service.mjs), and effect/http-api alone doing so
// with none of the service's middleware (bench/lib/effect-minimal.mjs); the proposed target is >= 50% of the floor
// ceiling 1 / (1/client + 1/effect/http-api alone), and the floors' CPU per request >= 50% of the service's.
// `node --expose-gc bench/server.mjs --baseline DIR` also measures, on PostgreSQL, the build at DIR (its packages
// built, e.g. an older commit's packages/ beside a node_modules link), each measurement old then new in one run.
// DISPATCH_BENCH_PROFILE=DIR runs each `dispatch serve` under `node --cpu-prof`, writes its profile in DIR and prints
// where its CPU went (bench/lib/cpu-profile.mjs). While iterating: DISPATCH_BENCH_QUICK=1 measures only `dispatch
// serve` against its ceilings (no PGlite, no service in this process, no raw INSERT rate), DISPATCH_BENCH_LOADS=
// creations (or appends) only that load, DISPATCH_BENCH_CREATIONS=N fewer requests (appends are twice as many).
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath, pathToFileURL } from "node:url"
import { hashToken, serve } from "../packages/server/dist/index.js"
import { serveReadyLine } from "../packages/cli/dist/commands/ServeReady.js"
import { apiCaller, typedCaller } from "./lib/api.mjs"
import { rawInsertRate, replayScript, scriptRate } from "./lib/pgbench.mjs"
import { withPostgres } from "./lib/postgres.mjs"
import { recordedPostgres } from "./lib/recorded-database.mjs"
import { child, processCpuMs } from "./lib/process.mjs"
import { profileSummary, summaryLines } from "./lib/cpu-profile.mjs"

// This tree's build, and the baseline's when asked for: its service and its command line.
const buildAt = async (label, root) => ({
  label,
  serve: root === undefined ? serve : (await import(pathToFileURL(join(root, "packages", "server", "dist", "index.js")).href)).serve,
  cli: join(root ?? fileURLToPath(new URL("..", import.meta.url)), "packages", "cli", "bin", "dispatch.js"),
  // A build from before the URL came first prints its URL once it serves, and no ready line.
  printsReadyLine: existsSync(join(root ?? fileURLToPath(new URL("..", import.meta.url)), "packages", "cli", "dist", "commands", "ServeReady.js"))
})
const baselineAt = process.argv.indexOf("--baseline")
const builds = [...(baselineAt === -1 ? [] : [await buildAt("baseline", process.argv[baselineAt + 1])]), await buildAt(baselineAt === -1 ? "" : "this tree", undefined)]
const named = (build, what) => (build.label === "" ? what : `${build.label}: ${what}`)

const token = randomBytes(24).toString("hex")
const tokens = [{ name: "bench", group: "bench", access: "write", tokenHash: hashToken(token, randomBytes(16)) }]
const creations = Number(process.env.DISPATCH_BENCH_CREATIONS ?? 1000)
const quick = process.env.DISPATCH_BENCH_QUICK === "1"
const loadsAsked = (process.env.DISPATCH_BENCH_LOADS ?? "creations,appends").split(",")
const concurrency = 16
// Each measurement stops after this long even when not every creation was made (a loaded machine).
const budgetMs = 30_000

const call = apiCaller(token)
const typed = typedCaller(token)

const runtime = { kind: "TrainingRuntime", name: "dioptra-torch" }

// Names are unique to each world: several services of one run share a PostgreSQL database.
let worlds = 0

const world = async (url) => {
  const tag = ++worlds
  const queue = await typed(url, (c) => c.queues.create({ payload: { name: `gpu-${tag}`, backend: { config: { namespace: "ml", mode: "plain", runtimes: [runtime] }, runtime, image: "example/worker:1" } } }))
  const entrypoint = await typed(url, (c) => c.entrypoints.create({ payload: {
    name: `train-${tag}`,
    queues: [queue.id],
    parameters: [
      { name: "epochs", type: "integer", defaultValue: "3" },
      { name: "lr", type: "float", defaultValue: "0.01" }
    ],
    taskGraph: { train: { "?method": { a: { train_a: { epochs: "$epochs" } }, b: { train_b: { lr: "$lr" } } } } },
    command: ["python", "run.py"]
  } }))
  const experiment = await typed(url, (c) => c.experiments.create({ payload: { name: `bench-${tag}`, entrypoints: [entrypoint.id] } }))
  return { queue: queue.id, entrypoint: entrypoint.id, experiment: experiment.id }
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]

// Runs `once(i)` `creations` times, `concurrency` at a time, within the budget; returns each call's latency, the
// wall seconds and this process's CPU milliseconds (server and client together: both run here).
const drive = async (once, count = creations) => {
  const latencies = []
  let next = 0
  const cpu = process.cpuUsage()
  const start = performance.now()
  const deadline = start + budgetMs
  const worker = async () => {
    while (next < count && performance.now() < deadline) {
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

const creationBody = (w, i) => ({ entrypoint: w.entrypoint, queue: w.queue, values: { epochs: String(i % 50) }, swaps: { method: "a" }, timeout: "2h", description: `bench ${i}` })

// The loads measured: what is made ready on a service (`setup`), one request of the load (`request(url, ready, i)`),
// and what a bare server is sent in its place (`bare`, the same request to a server that reads nothing).
const jobCreations = {
  what: "job creations",
  unit: "creations",
  endpoint: "jobs.create",
  count: creations,
  setup: (url) => world(url),
  request: (url, w, i) => call(url, "POST", `/experiments/${w.experiment}/jobs`, creationBody(w, i)),
  bare: { experiment: 1, entrypoint: 1, queue: 1 }
}

// 16 jobs (queued: their queue has no backend, which a metric post does not look at), each posting its loss at the
// next step; with 16 posts in flight taken in turn, each job has about one post in flight.
const jobsReporting = 16
const metricAppends = {
  what: "metric appends",
  unit: "appends",
  endpoint: "jobs.recordMetric",
  count: 2 * creations,
  setup: async (url) => {
    const w = await world(url)
    const jobs = []
    for (let k = 0; k < jobsReporting; k++) jobs.push((await call(url, "POST", `/experiments/${w.experiment}/jobs`, creationBody(w, k))).id)
    return { jobs, steps: jobs.map(() => 0) }
  },
  request: (url, ready, i) => {
    const k = i % ready.jobs.length
    const step = ready.steps[k]++
    return call(url, "POST", `/jobs/${ready.jobs[k]}/metrics`, { name: "loss", step, value: 2 / (1 + step / 100) })
  },
  bare: { jobs: Array.from({ length: jobsReporting }, (_, k) => k + 1), steps: Array.from({ length: jobsReporting }, () => 0) }
}

// Runs `load` on the service at `url` (20 requests to warm up, then the measured run); prints and answers the rate.
const runLoad = async (label, url, cpuNote, load = jobCreations) => {
  const ready = await load.setup(url)
  for (let i = 0; i < 20; i++) await load.request(url, ready, i)
  const { latencies, seconds, cpuMs } = await drive((i) => load.request(url, ready, 20 + i), load.count)
  const sorted = [...latencies].sort((a, b) => a - b)
  console.log(
    `${label}: ${latencies.length} ${load.what}, ${concurrency} in flight: ${(latencies.length / seconds).toFixed(0)} ${load.unit}/s, ` +
      `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted.at(-1).toFixed(1)} ms; ` +
      `${cpuNote} ${(cpuMs / latencies.length).toFixed(2)} ms per request`
  )
  return { rate: latencies.length / seconds, answered: latencies.length }
}

const measure = async (label, options, build = builds.at(-1)) => {
  const started = await build.serve({ tokens, ...options })
  if (started._tag !== "Success") throw new Error(started.failure.message)
  const server = started.success
  try {
    return (await runLoad(label, server.url, "CPU of this process (service and client)")).rate
  } finally {
    await server.close()
  }
}

// The service as `dispatch serve` runs it, in a process of its own on `databaseUrl`, driven by this process's client.
const measureServeProcess = async (label, databaseUrl, build, load) => {
  const dir = mkdtempSync(join(tmpdir(), "dispatch-bench-serve-"))
  const tokensFile = join(dir, "tokens.json")
  writeFileSync(tokensFile, JSON.stringify(tokens))
  const servingLine = new RegExp(`^${serveReadyLine}`, "m")
  const profileDir = process.env.DISPATCH_BENCH_PROFILE
  const profileName = `${load.unit}-${build.label || "serve"}-${Date.now()}.cpuprofile`.replace(/\s+/g, "-")
  const profiling = profileDir === undefined || profileDir === "" ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${profileName}`]
  const served = await child([...profiling, build.cli, "serve", "--port", "0", "--tokens", tokensFile], { DATABASE_URL: databaseUrl }, (out, err) =>
    !build.printsReadyLine || servingLine.test(err) ? /^(http:\/\/127\.0\.0\.1:\d+)\/api\/v1$/m.exec(out)?.[1] : undefined
  )
  try {
    const cpuBefore = processCpuMs(served.process.pid)
    const { rate, answered } = await runLoad(label, served.value, "CPU of the client", load)
    // Its own CPU over the setup, the warm-up and the measured run.
    const cpuMs = (processCpuMs(served.process.pid) - cpuBefore) / (answered + 20)
    console.log(`  the dispatch serve process's CPU: ${cpuMs.toFixed(2)} ms per request (its access log on)`)
    return { rate, cpuMs }
  } finally {
    await served.stop()
    rmSync(dir, { recursive: true, force: true })
    if (profiling.length > 0) {
      const summary = profileSummary(JSON.parse(readFileSync(join(profileDir, profileName), "utf8")))
      for (const line of summaryLines(summary, 30)) console.log(`    ${line}`)
    }
  }
}

// What one request sends to the database: a service on `databaseUrl` whose database records every statement and its
// parameters as node-postgres sends them (a transaction's BEGIN and COMMIT too), asked `request(url, world, i)` once
// to warm it and once more, recorded; with that request's answer.
const statementsOf = async (databaseUrl, load) => {
  const sent = []
  const database = recordedPostgres(databaseUrl, sent)
  const started = await serve({ tokens, database })
  if (started._tag !== "Success") throw new Error(started.failure.message)
  try {
    const ready = await load.setup(started.success.url)
    await load.request(started.success.url, ready, 0)
    sent.length = 0
    const answer = await load.request(started.success.url, ready, 1)
    return { statements: [...sent], answer }
  } finally {
    await started.success.close()
  }
}

// The HTTP ceiling: a bare node:http server in a process of its own that answers the same request with a constant
// job, driven by the same client from this process. No job service on node:http answers faster, whatever its
// database does.
const bareServer = `
import { createServer } from "node:http"
const answer = JSON.stringify({ id: 1, status: "queued", description: "bench" })
const server = createServer((request, response) => {
  request.resume()
  request.on("end", () => response.writeHead(200, { "content-type": "application/json" }).end(answer))
})
server.listen(0, "127.0.0.1", () => console.log("http://127.0.0.1:" + server.address().port))
process.on("SIGTERM", () => process.exit(0))
`

const bareHttpRate = async (load) => {
  const bare = await child(["--input-type=module", "-e", bareServer], {}, (out) => /^(http:\S+)$/m.exec(out)?.[1])
  try {
    const serverCpu = processCpuMs(bare.process.pid)
    const { latencies, seconds, cpuMs } = await drive((i) => load.request(bare.value, load.bare, i), load.count)
    console.log(
      `  bare node:http in its own process answering the same ${load.what} with a constant, same client, ${concurrency} in flight: ${(latencies.length / seconds).toFixed(0)} answers/s, ` +
        `CPU of the client ${(cpuMs / latencies.length).toFixed(2)} ms and of the server ${((processCpuMs(bare.process.pid) - serverCpu) / latencies.length).toFixed(2)} ms per answer`
    )
    return latencies.length / seconds
  } finally {
    await bare.stop()
  }
}

// The floors under the ceiling: the service's own PostgreSQL client sending one request's statements from node (no
// HTTP), and the service's own HTTP stack answering the request with a constant (no statement), each in a process
// of its own. A service built on both can be no faster than 1 / (1/client + 1/framework).
const clientReplayRate = (databaseUrl, statements) => {
  const dir = mkdtempSync(join(tmpdir(), "dispatch-bench-replay-"))
  try {
    const file = join(dir, "statements.json")
    writeFileSync(file, JSON.stringify(statements))
    const out = execFileSync(process.execPath, [fileURLToPath(new URL("lib/client-replay.mjs", import.meta.url)), databaseUrl, file, String(concurrency), "10"], { encoding: "utf8" })
    return JSON.parse(out.trim().split("\n").at(-1))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// `minimal` runs effect/http-api alone (bench/lib/effect-minimal.mjs) instead of the service's HTTP stack.
const frameworkRate = async (databaseUrl, load, answer, minimal = false) => {
  const dir = mkdtempSync(join(tmpdir(), "dispatch-bench-constant-"))
  const [tokensFile, answersFile] = [join(dir, "tokens.json"), join(dir, "answers.json")]
  writeFileSync(tokensFile, JSON.stringify(tokens))
  writeFileSync(answersFile, JSON.stringify({ [load.endpoint]: answer }))
  const profileDir = process.env.DISPATCH_BENCH_PROFILE
  const profileName = `${load.unit}-${minimal ? "minimal" : "constant"}-${Date.now()}.cpuprofile`
  const profiling = profileDir === undefined || profileDir === "" ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${profileName}`]
  const program = minimal ? [fileURLToPath(new URL("lib/effect-minimal.mjs", import.meta.url)), answersFile] : [fileURLToPath(new URL("lib/constant-service.mjs", import.meta.url)), databaseUrl, tokensFile, answersFile]
  const service = await child([...profiling, ...program], {}, (out) => /^(http:\S+)$/m.exec(out)?.[1])
  try {
    // effect/http-api alone stores nothing to set up: it is sent what a bare server is sent.
    const ready = minimal ? load.bare : await load.setup(service.value)
    for (let i = 0; i < 20; i++) await load.request(service.value, ready, i)
    const serverCpu = processCpuMs(service.process.pid)
    const { latencies, seconds, cpuMs } = await drive((i) => load.request(service.value, ready, 20 + i), load.count)
    return { rate: latencies.length / seconds, clientCpuMs: cpuMs / latencies.length, serverCpuMs: (processCpuMs(service.process.pid) - serverCpu) / latencies.length }
  } finally {
    await service.stop()
    rmSync(dir, { recursive: true, force: true })
    if (profiling.length > 0) for (const line of summaryLines(profileSummary(JSON.parse(readFileSync(join(profileDir, profileName), "utf8"))), 30)) console.log(`    ${line}`)
  }
}

if (!quick) await measure("PGlite (in memory)", {})

const percentOf = (rate, raw) => `${((100 * rate) / raw).toFixed(1)}%`
const target = 0.5
const verdict = (met) => (met ? "met" : "NOT met")

await withPostgres(async (databaseUrl) => {
  if (!quick) for (const build of builds) await measure(named(build, "PostgreSQL 15 (loopback), service in this process"), { databaseUrl }, build)
  const rawRate = quick ? undefined : rawInsertRate(databaseUrl, concurrency, 10)
  if (rawRate !== undefined) console.log(`PostgreSQL 15 raw INSERT of a job-sized row (pgbench, ${concurrency} clients, 10 s), a yardstick: ${rawRate.toFixed(0)} INSERTs/s`)
  for (const load of [jobCreations, metricAppends].filter((l) => loadsAsked.includes(l.unit))) {
    console.log(`${load.what}, dispatch serve in its own process on PostgreSQL 15 (loopback), ${concurrency} in flight, against its ceiling:`)
    const rates = []
    for (const build of builds) rates.push(await measureServeProcess(named(build, `  ${load.what}`), databaseUrl, build, load))
    const { statements, answer } = await statementsOf(databaseUrl, load)
    console.log(`  one request sends ${statements.length} statements: ${statements.map(({ text }) => `${text.replace(/\s+/g, " ").trim().slice(0, 48)}...`).join(" | ")}`)
    // Named as the service sends them, so each connection plans each statement once: pgbench's prepared protocol.
    const replayRate = scriptRate(databaseUrl, replayScript(statements), concurrency, 10, "prepared")
    const bareRate = await bareHttpRate(load)
    const ceiling = 1 / (1 / replayRate + 1 / bareRate)
    const { rate, cpuMs } = rates.at(-1)
    console.log(`  replay: pgbench sending exactly those statements, prepared, ${concurrency} clients, 10 s: ${replayRate.toFixed(0)} ${load.unit}/s`)
    console.log(`  bare: bare node:http answering the same requests with a constant: ${bareRate.toFixed(0)} ${load.unit}/s`)
    console.log(`  ceiling = 1 / (1/replay + 1/bare): ${ceiling.toFixed(0)} ${load.unit}/s`)
    console.log(`  ${load.what} of dispatch serve / ceiling: ${rate.toFixed(0)}/s, ${percentOf(rate, ceiling)} (target >= ${100 * target}%: ${verdict(rate / ceiling >= target)})${rawRate === undefined ? "" : `; ${percentOf(rate, rawRate)} of the raw INSERTs`}`)
    const client = clientReplayRate(databaseUrl, statements)
    console.log(`  client: the service's PostgreSQL client (store/PostgresClient.ts) sending those statements from node, ${concurrency} at a time, 10 s: ${client.rate.toFixed(0)} ${load.unit}/s, its CPU ${client.cpuMs.toFixed(2)} ms per request`)
    const framework = await frameworkRate(databaseUrl, load, answer)
    console.log(
      `  framework: the service's HTTP stack (effect/http-api, authentication, decoding, access log) answering the same requests with a constant: ${framework.rate.toFixed(0)} ${load.unit}/s, ` +
        `CPU of the client ${framework.clientCpuMs.toFixed(2)} ms and of the server ${framework.serverCpuMs.toFixed(2)} ms per answer`
    )
    // How much of the framework is effect/http-api itself, and how much the service's own middleware on it.
    const minimal = await frameworkRate(databaseUrl, load, answer, true)
    console.log(
      `  of which effect/http-api alone (one declared endpoint answering a constant, none of the service's middleware): ${minimal.rate.toFixed(0)} ${load.unit}/s, ` +
        `CPU of the server ${minimal.serverCpuMs.toFixed(2)} ms per answer; the service's middleware (authentication, admission, access log, metrics, request services) ${(framework.serverCpuMs - minimal.serverCpuMs).toFixed(2)} ms`
    )
    // The floor is node-postgres and effect/http-api: the service's middleware on top of them is its own code.
    const floor = 1 / (1 / client.rate + 1 / minimal.rate)
    console.log(`  floor ceiling = 1 / (1/client + 1/effect/http-api alone): ${floor.toFixed(0)} ${load.unit}/s (with the service's whole HTTP stack in its place: ${(1 / (1 / client.rate + 1 / framework.rate)).toFixed(0)}/s)`)
    console.log(`  ${load.what} of dispatch serve / floor ceiling: ${rate.toFixed(0)}/s, ${percentOf(rate, floor)} (proposed target >= ${100 * target}%: ${verdict(rate / floor >= target)})`)
    // The same comparison in CPU, which a loaded machine disturbs far less than rates: what the floors spend on a
    // request (effect/http-api's server and the client's statements) against what dispatch serve spends.
    const floorCpu = minimal.serverCpuMs + client.cpuMs
    console.log(
      `  CPU per request: the floors ${floorCpu.toFixed(2)} ms (effect/http-api ${minimal.serverCpuMs.toFixed(2)} + client ${client.cpuMs.toFixed(2)}), dispatch serve ${cpuMs.toFixed(2)} ms: ` +
        `${percentOf(floorCpu, cpuMs)} (proposed target >= ${100 * target}%: ${verdict(floorCpu / cpuMs >= target)})`
    )
  }
})
