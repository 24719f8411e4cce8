// Job creation and the job -> StartRequest mapping: how long each takes for a typical entrypoint and for a
// large task graph (the one that needs several env chunks), measured on the built package.
import { performance } from "node:perf_hooks"
import { catalogOf, newJob, toStartRequest, validateJobRequest } from "../packages/jobs/dist/index.js"

const runtime = { kind: "TrainingRuntime", name: "dioptra-torch" }
const queue = { id: 1, name: "gpu", backend: { config: { namespace: "ml", mode: "plain", runtimes: [runtime] }, runtime, image: "example/worker:1" } }

const entrypointWith = (steps) => {
  const taskGraph = {}
  for (let i = 0; i < steps; i++) {
    taskGraph[`step_${i}`] =
      i % 10 === 0
        ? { [`?swap_${i}`]: { a: { task_a: { x: `$p${i % 20}`, note: "n".repeat(40) } }, b: { task_b: [i] } }, dependencies: i > 0 ? [`step_${i - 1}`] : [] }
        : { [`task_${i}`]: { input: `$p${i % 20}`, note: "n".repeat(40) } }
  }
  const parameters = Array.from({ length: 20 }, (_, i) => ({ name: `p${i}`, type: i % 2 === 0 ? "integer" : "float", defaultValue: "1" }))
  return { id: 1, name: "e", queues: [1], snapshots: [{ snapshot: 1, parameters, artifactParameters: [], taskGraph, command: ["python", "run.py"] }] }
}

const measure = (label, runs, fn) => {
  for (let i = 0; i < Math.min(runs, 20); i++) fn(i)
  const start = performance.now()
  for (let i = 0; i < runs; i++) fn(i)
  const perRun = (performance.now() - start) / runs
  console.log(`${label}: ${perRun.toFixed(3)} ms per call (${runs} runs)`)
}

for (const steps of [20, 2000, 8000]) {
  const entrypoint = entrypointWith(steps)
  const catalog = catalogOf({ experiments: [{ id: 1, name: "x", entrypoints: [1] }], entrypoints: [entrypoint], queues: [queue] })
  const swaps = Object.fromEntries(Array.from({ length: Math.ceil(steps / 10) }, (_, i) => [`swap_${i * 10}`, "a"]))
  const request = { entrypoint: 1, queue: 1, values: { p0: "5", p1: "0.5" }, swaps, timeout: "2h" }
  const accepted = validateJobRequest(1, request, catalog)
  if (accepted._tag !== "Success") throw new Error(`bench request refused: ${JSON.stringify(accepted.failure.problems.slice(0, 3).map((p) => p.message))}`)
  const job = newJob(accepted.success, 1, "2026-11-30T12:00:00.000Z")
  const runs = steps > 1000 ? 50 : 2000
  measure(`validateJobRequest, ${steps} steps`, runs, () => validateJobRequest(1, request, catalog))
  measure(`toStartRequest, ${steps} steps`, runs, (i) => toStartRequest(job, queue, entrypoint, { time: i, entropy: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }))
  const start = toStartRequest(job, queue, entrypoint, { time: 0, entropy: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] })
  if (start._tag !== "Success") throw new Error(`bench start refused: ${start.failure.problems[0]?.message}`)
  const env = start.success.spec.env
  const bytes = Object.values(env).reduce((n, v) => n + Buffer.byteLength(v), 0)
  console.log(`  ${steps} steps: ${Object.keys(env).length} env variables, ${env.DIOPTRA_JOB_DOCUMENT_CHUNKS} chunk(s), ${bytes} bytes`)
}
