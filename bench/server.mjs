// The job service under load: job creations per second and latency percentiles over real HTTP, on embedded
// PGlite and on PostgreSQL 15 (DATABASE_URL's server, else one started with test/postgres/start.sh; skipped
// with a note when there is none). On PostgreSQL the creation rate, with the service in this process and in a
// `dispatch serve` process of its own, is set beside the raw INSERT rate of a job-sized row into the same server
// (pgbench, as many clients as requests in flight): the target is >= 30%. Beside it, two ceilings, each a server in
// a process of its own driven by its own client: PostgreSQL running exactly the statements one creation sends
// (captured from the service, replayed by pgbench, 16 clients, prepared as the service prepares them and unnamed
// for comparison), and a bare node:http server answering the same
// request with a constant (this process's node:http client with kept-alive connections, as for the service).
// `node --expose-gc bench/server.mjs --baseline DIR` also measures, on PostgreSQL, the build at DIR (its packages
// built, e.g. an older commit's packages/ beside a node_modules link), each measurement old then new in one run.
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath, pathToFileURL } from "node:url"
import pgUtils from "../packages/server/node_modules/pg/lib/utils.js"
import { databaseLayer, hashToken, serve } from "../packages/server/dist/index.js"
import { openPostgres } from "../packages/server/dist/store/PostgresDatabase.js"
import { serveReadyLine } from "../packages/cli/dist/commands/ServeReady.js"
import { apiCaller, typedCaller } from "./lib/api.mjs"
import { rawInsertRate, replayScript, scriptRate } from "./lib/pgbench.mjs"
import { withPostgres } from "./lib/postgres.mjs"

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
const creations = 1000
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

const creationBody = (w, i) => ({ entrypoint: w.entrypoint, queue: w.queue, values: { epochs: String(i % 50) }, swaps: { method: "a" }, timeout: "2h", description: `bench ${i}` })

// Creates jobs on the service at `url` (20 to warm up, then the measured run); prints and answers the rate.
const createJobs = async (label, url, cpuNote) => {
  const w = await world(url)
  for (let i = 0; i < 20; i++) await call(url, "POST", `/experiments/${w.experiment}/jobs`, creationBody(w, i))
  const { latencies, seconds, cpuMs } = await drive((i) => call(url, "POST", `/experiments/${w.experiment}/jobs`, creationBody(w, i)))
  const sorted = [...latencies].sort((a, b) => a - b)
  console.log(
    `${label}: ${latencies.length} job creations, ${concurrency} in flight: ${(latencies.length / seconds).toFixed(0)} creations/s, ` +
      `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted.at(-1).toFixed(1)} ms; ` +
      `${cpuNote} ${(cpuMs / latencies.length).toFixed(2)} ms per creation`
  )
  return latencies.length / seconds
}

const measure = async (label, options, build = builds.at(-1)) => {
  const started = await build.serve({ tokens, ...options })
  if (started._tag !== "Success") throw new Error(started.failure.message)
  const server = started.success
  try {
    return await createJobs(label, server.url, "CPU of this process (service and client)")
  } finally {
    await server.close()
  }
}

// A node process running `args`, its stdout and stderr kept; answers once `ready(stdout, stderr)` gives a value.
const child = (args, env, ready) =>
  new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } })
    let [out, err] = ["", ""]
    const settle = () => {
      const value = ready(out, err)
      if (value !== undefined) resolve({ value, process: proc, stop: () => new Promise((done) => (proc.once("exit", done), proc.kill("SIGTERM"))) })
    }
    proc.stdout.on("data", (chunk) => ((out += chunk), settle()))
    proc.stderr.on("data", (chunk) => ((err += chunk), settle()))
    proc.once("exit", (code) => reject(new Error(`${args.join(" ")} exited ${code}: ${err}`)))
  })

// A process's CPU so far in milliseconds: utime and stime, in clock ticks of 10 ms, after its command's name.
const processCpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

// The service as `dispatch serve` runs it, in a process of its own on `databaseUrl`, driven by this process's client.
const measureServeProcess = async (label, databaseUrl, build) => {
  const dir = mkdtempSync(join(tmpdir(), "dispatch-bench-serve-"))
  const tokensFile = join(dir, "tokens.json")
  writeFileSync(tokensFile, JSON.stringify(tokens))
  const servingLine = new RegExp(`^${serveReadyLine}`, "m")
  const served = await child([build.cli, "serve", "--port", "0", "--tokens", tokensFile], { DATABASE_URL: databaseUrl }, (out, err) =>
    !build.printsReadyLine || servingLine.test(err) ? /^(http:\/\/127\.0\.0\.1:\d+)\/api\/v1$/m.exec(out)?.[1] : undefined
  )
  try {
    const cpuBefore = processCpuMs(served.process.pid)
    const rate = await createJobs(label, served.value, "CPU of the client")
    // Its own CPU over the warm-up and the measured run (the creations answered).
    console.log(`  the dispatch serve process's CPU: ${((processCpuMs(served.process.pid) - cpuBefore) / (creations + 20)).toFixed(2)} ms per creation (its access log on)`)
    return rate
  } finally {
    await served.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

// What one creation sends to the database: a service on `databaseUrl` whose database records every statement and its
// parameters as node-postgres sends them (a transaction's BEGIN and COMMIT too), asked to create one job after a
// first creation has warmed it.
const creationStatements = async (databaseUrl) => {
  const sent = []
  const recorded = (sql) => ({
    ...sql,
    query: (text, params = []) => (sent.push({ text, params: params.map((p) => pgUtils.prepareValue(p)) }), sql.query(text, params)),
    exec: (script) => (sent.push({ text: script, params: [] }), sql.exec(script))
  })
  const database = databaseLayer("recorded PostgreSQL", async () => {
    const db = await openPostgres(databaseUrl)
    return {
      ...db,
      ...recorded(db),
      transaction: (body) =>
        db.transaction(async (sql) => {
          sent.push({ text: "begin", params: [] })
          const result = await body(recorded(sql))
          sent.push({ text: "commit", params: [] })
          return result
        })
    }
  })
  const started = await serve({ tokens, database })
  if (started._tag !== "Success") throw new Error(started.failure.message)
  try {
    const w = await world(started.success.url)
    await call(started.success.url, "POST", `/experiments/${w.experiment}/jobs`, creationBody(w, 0))
    sent.length = 0
    await call(started.success.url, "POST", `/experiments/${w.experiment}/jobs`, creationBody(w, 1))
    return [...sent]
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

const bareHttpRate = async () => {
  const bare = await child(["--input-type=module", "-e", bareServer], {}, (out) => /^(http:\S+)$/m.exec(out)?.[1])
  try {
    const serverCpu = processCpuMs(bare.process.pid)
    const { latencies, seconds, cpuMs } = await drive(() => call(bare.value, "POST", "/experiments/1/jobs", { entrypoint: 1, queue: 1, values: {}, description: "bench" }))
    console.log(
      `bare node:http in its own process answering a constant job, same client, ${concurrency} in flight: ${(latencies.length / seconds).toFixed(0)} answers/s, ` +
        `CPU of the client ${(cpuMs / latencies.length).toFixed(2)} ms and of the server ${((processCpuMs(bare.process.pid) - serverCpu) / latencies.length).toFixed(2)} ms per answer`
    )
    return latencies.length / seconds
  } finally {
    await bare.stop()
  }
}

await measure("PGlite (in memory)", {})

const percentOf = (rate, raw) => `${((100 * rate) / raw).toFixed(1)}%`

await withPostgres(async (databaseUrl) => {
  const inProcess = []
  for (const build of builds) inProcess.push(await measure(named(build, "PostgreSQL 15 (loopback), service in this process"), { databaseUrl }, build))
  const ownProcess = []
  for (const build of builds) ownProcess.push(await measureServeProcess(named(build, "PostgreSQL 15 (loopback), dispatch serve in its own process"), databaseUrl, build))
  const [creationRate, processRate] = [inProcess.at(-1), ownProcess.at(-1)]
  const rawRate = rawInsertRate(databaseUrl, concurrency, 10)
  console.log(`PostgreSQL 15 raw INSERT of a job-sized row (pgbench, ${concurrency} clients, 10 s): ${rawRate.toFixed(0)} INSERTs/s`)
  const ratio = Math.max(creationRate, processRate) / rawRate
  console.log(
    `creations over HTTP / raw INSERTs: ${percentOf(creationRate, rawRate)} in this process, ${percentOf(processRate, rawRate)} as dispatch serve ` +
      `(target >= 30%: ${ratio >= 0.3 ? "met" : "NOT met"})`
  )
  const statements = await creationStatements(databaseUrl)
  console.log(`one creation sends ${statements.length} statements: ${statements.map(({ text }) => `${text.replace(/\s+/g, " ").trim().slice(0, 48)}...`).join(" | ")}`)
  // As the service sends them (named, so each connection plans each statement once: pgbench's prepared protocol),
  // and as unnamed statements (planned at every execution: pgbench's simple protocol), which the service sent before.
  const script = replayScript(statements)
  const replayRate = scriptRate(databaseUrl, script, concurrency, 10, "prepared")
  const unnamedRate = scriptRate(databaseUrl, script, concurrency, 10, "simple")
  console.log(
    `ceiling, database: pgbench sending exactly those statements, ${concurrency} clients, 10 s each: prepared once per connection ` +
      `${replayRate.toFixed(0)} creations/s, ${percentOf(replayRate, rawRate)} of the raw INSERTs; planned at every execution ${unnamedRate.toFixed(0)}/s, ${percentOf(unnamedRate, rawRate)}`
  )
  const bareRate = await bareHttpRate()
  console.log(`ceiling, HTTP: bare node:http answers / raw INSERTs: ${percentOf(bareRate, rawRate)}`)
})
