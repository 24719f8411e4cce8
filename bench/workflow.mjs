// The cost of a job's dispatch as an effect/workflow workflow on effect/cluster's SQL engine against the service's
// lease path, at two sizes (100 and 1,000 jobs, the sizes `pnpm bench` can afford, unless given as arguments:
// `node bench/workflow.mjs 1000 10000`).
// It runs packages/server/test/workflow/WorkflowCost.test.ts (which asserts that every job was dispatched once) with
// WORKFLOW_COST_JOBS set, on PGlite and on PostgreSQL (DATABASE_URL, or a cluster test/postgres/start.sh starts),
// prints its figures, and then the CPU per job of each path at the larger size against the smaller, with the ratio.
// The verdict these figures support is in docs/architecture.md ("Why dispatch keeps leases, not effect/workflow").
import { spawnSync } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const sizes = process.argv.slice(2).filter((a) => a !== "--").map(Number)
const [small, large] = sizes.length === 2 ? sizes : [100, 1000]

const cpuPerJob = new Map()
for (const jobs of [small, large]) {
  console.log(`-- ${jobs} jobs`)
  const run = spawnSync(process.execPath, [join(root, "node_modules/vitest/vitest.mjs"), "run", "packages/server/test/workflow/WorkflowCost.test.ts"], {
    cwd: root,
    env: { ...process.env, WORKFLOW_COST_JOBS: String(jobs) },
    encoding: "utf8",
    maxBuffer: 1 << 28
  })
  // vitest colours what it relays of a test's output: the escapes go before the lines are read.
  const plain = `${run.stdout}\n${run.stderr}`.replace(/\u001b\[[0-9;]*m/g, "")
  const lines = plain.split("\n").filter((line) => line.startsWith("workflow cost: "))
  for (const line of lines) {
    console.log(line.slice("workflow cost: ".length))
    const cpu = /^workflow cost: (.*?), \d+ jobs.* ([\d.]+) ms CPU per job/.exec(line)
    if (cpu !== null) cpuPerJob.set(`${cpu[1]} ${jobs}`, Number(cpu[2]))
  }
  if (run.status !== 0) {
    console.log(`!! the cost test failed at ${jobs} jobs (exit ${run.status ?? run.signal}):`)
    for (const line of plain.split("\n").filter((line) => /Error|FAIL|timed out/.test(line)).slice(0, 20)) console.log(`   ${line}`)
    process.exitCode = 1
  }
}
for (const path of ["lease path, PGlite", "workflow, PGlite", "workflow, PostgreSQL"]) {
  const a = cpuPerJob.get(`${path} ${small}`)
  const b = cpuPerJob.get(`${path} ${large}`)
  if (a === undefined || b === undefined) continue
  console.log(`${path}: CPU per job ${a} ms at ${small}, ${b} ms at ${large}, ratio ${(b / a).toFixed(2)} (target ≤ 1.5)`)
}
