// The simulator's in-process face: create and get throughput with 1k and 100k TrainJobs stored, the
// memory each stored object takes, and what one clock step costs, bare and with Trainer reconciling
// thousands of jobs. Run with --expose-gc (bench/run.mjs does) for steadier memory figures.
import { Simulator } from "../packages/sim/dist/index.js"
import { benchRuntime } from "./lib/sim-runtime.mjs"

const at = { group: "trainer.kubeflow.org", version: "v1alpha1", resource: "trainjobs", namespace: "default" }
const job = (name) => ({
  apiVersion: "trainer.kubeflow.org/v1alpha1",
  kind: "TrainJob",
  metadata: { name, labels: { "dispatch.example.org/run": name } },
  spec: { runtimeRef: { name: "torch-distributed" }, suspend: true, trainer: { image: "example.org/train:1", numNodes: 2, command: ["python", "train.py"] } }
})
const gc = () => globalThis.gc?.()
const heap = () => {
  gc()
  return process.memoryUsage().heapUsed
}

// Trainer's webhook would want the runtime to exist; the bench measures the store, so it is left out.
const fill = (count) => {
  const sim = new Simulator({ seed: 1, controllers: { trainer: { installed: false } } })
  for (let i = 0; i < count; i++) {
    const outcome = sim.handle({ ...at, verb: "create", body: job(`seed-${i}`) })
    if (outcome.kind !== "answered" || outcome.response.code !== 201) throw new Error(`seeding failed at ${i}`)
  }
  return sim
}

const rate = (label, count, run) => {
  const start = process.hrtime.bigint()
  for (let i = 0; i < count; i++) run(i)
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  console.log(`${label.padEnd(52)} ${Math.round(count / seconds).toString().padStart(8)} ops/s  ${((seconds * 1000) / count).toFixed(3).padStart(9)} ms each  (${count} in ${seconds.toFixed(2)} s)`)
}

for (const stored of [1_000, 100_000]) {
  const before = heap()
  const started = process.hrtime.bigint()
  const sim = fill(stored)
  const fillSeconds = Number(process.hrtime.bigint() - started) / 1e9
  const after = heap()
  console.log(`\n${stored} stored (filled in ${fillSeconds.toFixed(2)} s): ${Math.round((after - before) / stored)} bytes of heap per stored object`)
  rate(`create with ${stored} stored`, 5_000, (i) => sim.handle({ ...at, verb: "create", body: job(`new-${i}`) }))
  rate(`get with ${stored} stored`, 20_000, (i) => sim.handle({ ...at, verb: "get", name: `seed-${(i * 7919) % stored}` }))
  rate(`list limit=100 with ${stored} stored`, 100, () => sim.handle({ ...at, verb: "list", limit: 100 }))
  // A write makes the next clock step run the garbage collector over every stored object.
  rate(`write + 1 s clock step with ${stored} stored`, 200, (i) => {
    sim.handle({ ...at, verb: "create", body: job(`step-${i}`) })
    sim.advance(1000)
  })
  rate(`idle 1 s clock step with ${stored} stored`, 1000, () => sim.advance(1000))
}

// With Trainer installed: every job runs for 2 s of sim time and completes, then the clock keeps moving.
// A step should cost what changed or is due (here one new job per step), not the number of jobs stored.
const runtime = benchRuntime
const running = (name) => ({ ...job(name), spec: { runtimeRef: { name: "torch-distributed" } } })
for (const stored of [1_000, 10_000]) {
  // Trainer alone (no JobSets, Jobs or pods): bench/sim-pods.mjs measures the object tree.
  const sim = new Simulator({ seed: 1, objects: [runtime], controllers: { trainer: { runTimeMs: 2_000 }, workloads: { installed: false } } })
  const started = process.hrtime.bigint()
  for (let i = 0; i < stored; i++) sim.handle({ ...at, verb: "create", body: running(`seed-${i}`) })
  sim.advance(4_000)
  const done = sim.system.list("trainjobs").filter((j) => (j.status?.conditions ?? []).some((c) => c.type === "Complete")).length
  console.log(`\n${stored} TrainJobs under Trainer, created and run to completion (${done} Complete) in ${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(2)} s`)
  rate(`idle 1 s step, ${stored} finished jobs, Trainer`, 200, () => sim.advance(1000))
  rate(`new job + 1 s step, ${stored} finished jobs, Trainer`, 200, (i) => {
    sim.handle({ ...at, verb: "create", body: running(`step-${i}`) })
    sim.advance(1000)
  })
}
