// The job list at scale, on PostgreSQL 15 (DATABASE_URL's server, else one started with test/postgres/start.sh):
// 100,000 jobs stored (one made through the API, the rest copies of it written by one generate_series statement,
// then VACUUM ANALYZE as autovacuum leaves a table after such an insert). The p99 of three answers, one request in
// flight: the first page, a page 1,000 deep, and a search by a description; each set against pgbench (one client,
// prepared) replaying exactly the statements that answer sent, recorded from the service. Target: the service's
// p99 <= 3x the replay's. The service runs in this process (its database recording what it sends), so its figures
// include the client's share of this process. Beside each it prints the framework's p99 (the service's HTTP stack
// answering the same request with that answer as a constant) and the ratio against pgbench's p99 plus it.
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { performance } from "node:perf_hooks"
import { hashToken, serve } from "../packages/server/dist/index.js"
import { apiCaller, typedCaller } from "./lib/api.mjs"
import { replayScript, scriptLatencies } from "./lib/pgbench.mjs"
import { psqlRun, withPostgres } from "./lib/postgres.mjs"
import { child } from "./lib/process.mjs"
import { recordedPostgres } from "./lib/recorded-database.mjs"

// DISPATCH_BENCH_JOBS=10000 runs it quickly; the target is for 100,000.
const stored = Number(process.env.DISPATCH_BENCH_JOBS ?? 100_000)
const requests = 200
const warmUp = 20
const pageLength = 10
const targetRatio = 3

const token = randomBytes(24).toString("hex")
const tokens = [{ name: "bench", group: "bench", access: "write", tokenHash: hashToken(token, randomBytes(16)) }]
const call = apiCaller(token)

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
const p99 = (latencies) => percentile([...latencies].sort((a, b) => a - b), 99)

// The same requests, one in flight, answered with `answer` by the service's own HTTP stack (effect/http-api, the
// Authorization middleware, the access log) in a process of its own, its list handler a constant
// (bench/lib/constant-service.mjs): the framework's share of an answer, which pgbench's replay leaves out.
const frameworkLatencies = async (databaseUrl, path, answer) => {
  const dir = mkdtempSync(join(tmpdir(), "dispatch-bench-constant-"))
  const [tokensFile, answersFile] = [join(dir, "tokens.json"), join(dir, "answers.json")]
  writeFileSync(tokensFile, JSON.stringify(tokens))
  writeFileSync(answersFile, JSON.stringify({ "jobs.list": answer }))
  const service = await child([fileURLToPath(new URL("lib/constant-service.mjs", import.meta.url)), databaseUrl, tokensFile, answersFile], {}, (out) => /^(http:\S+)$/m.exec(out)?.[1])
  try {
    for (let i = 0; i < warmUp; i++) await call(service.value, "GET", path(i))
    const latencies = []
    for (let i = 0; i < requests; i++) {
      const t0 = performance.now()
      await call(service.value, "GET", path(warmUp + i))
      latencies.push(performance.now() - t0)
    }
    return latencies
  } finally {
    await service.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

await withPostgres(async (databaseUrl) => {
  const sent = []
  const started = await serve({ tokens, database: recordedPostgres(databaseUrl, sent) })
  if (started._tag !== "Success") throw new Error(started.failure.message)
  const server = started.success
  try {
    const typed = (program) => typedCaller(token)(server.url, program)
    const queue = await typed((c) => c.queues.create({ payload: { name: "bench" } }))
    const entrypoint = await typed((c) => c.entrypoints.create({ payload: { name: "train", queues: [queue.id], parameters: [], artifactParameters: [], taskGraph: { train: { fit: {} } }, command: ["python"] } }))
    const experiment = await typed((c) => c.experiments.create({ payload: { name: "bench", entrypoints: [entrypoint.id] } }))
    const first = await typed((c) => c.jobs.create({ params: { id: experiment.id }, payload: { entrypoint: entrypoint.id, queue: queue.id, values: {}, timeout: "1h", description: "job 1" } }))
    const seedStart = performance.now()
    psqlRun(
      databaseUrl,
      `do $$ declare cols text; begin
         select string_agg(quote_ident(column_name), ', ' order by ordinal_position) into cols from information_schema.columns
           where table_name = 'jobs' and column_name not in ('id', 'description');
         execute format('insert into jobs (%s, description) select %s, ''job '' || s from jobs, generate_series(2, ${stored}) s where id = ${first.id}', cols, cols);
       end $$`
    )
    psqlRun(databaseUrl, "vacuum analyze jobs")
    console.log(`${stored} jobs stored (one through the API, the rest by one INSERT ... SELECT over generate_series, then VACUUM ANALYZE) in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`)

    const answers = [
      ["the first page", () => `/jobs?pageLength=${pageLength}`],
      ["a page 1,000 deep", () => `/jobs?pageLength=${pageLength}&index=${1000 * pageLength}`],
      ["a search by a description", (i) => `/jobs?pageLength=${pageLength}&search=${encodeURIComponent(`description:"job ${1 + ((i * 7919) % stored)}"`)}`]
    ]
    for (const [what, path] of answers) {
      for (let i = 0; i < warmUp; i++) await call(server.url, "GET", path(i))
      const latencies = []
      for (let i = 0; i < requests; i++) {
        const t0 = performance.now()
        await call(server.url, "GET", path(warmUp + i))
        latencies.push(performance.now() - t0)
      }
      sent.length = 0
      const answer = await call(server.url, "GET", path(0))
      const statements = sent.filter(({ text }) => /\bfrom jobs\b/i.test(text))
      const replay = scriptLatencies(databaseUrl, replayScript(statements), requests)
      const [service, database] = [p99(latencies), p99(replay)]
      console.log(
        `${what}: p99 ${service.toFixed(1)} ms over ${requests} requests, one in flight; pgbench replaying its ${statements.length} statements (prepared, one client): ` +
          `p99 ${database.toFixed(1)} ms; ratio ${(service / database).toFixed(1)}x (target <= ${targetRatio}x: ${service / database <= targetRatio ? "met" : "NOT met"})`
      )
      const framework = p99(await frameworkLatencies(databaseUrl, path, answer))
      const floor = database + framework
      console.log(
        `  the framework: the service's HTTP stack answering the same requests with this answer as a constant, in a process of its own: p99 ${framework.toFixed(1)} ms; ` +
          `against pgbench's p99 plus it (${floor.toFixed(1)} ms): ${(service / floor).toFixed(1)}x (proposed target <= ${targetRatio}x: ${service / floor <= targetRatio ? "met" : "NOT met"})`
      )
    }
  } finally {
    await server.close()
  }
})
