// The simulator's object tree at scale: TrainJobs of 8 nodes each run as a JobSet, a Job and 8 pods.
// Reports how fast pods are created (and scheduled and started) and what one clock step costs, with
// 100 and 1,000 running TrainJobs (800 and 8,000 pods) side by side: a step should cost what changed
// (one new job's tree, or nothing), not the number of pods stored.
import { Simulator } from "../packages/sim/dist/index.js"
import { benchRuntime } from "./lib/sim-runtime.mjs"

const nodes = 8
const at = { group: "trainer.kubeflow.org", version: "v1alpha1", resource: "trainjobs", namespace: "default" }
const job = (name) => ({
  apiVersion: "trainer.kubeflow.org/v1alpha1",
  kind: "TrainJob",
  metadata: { name },
  spec: { runtimeRef: { name: "torch-distributed" }, trainer: { numNodes: nodes, command: ["python", "train.py"] } }
})
const seconds = (start) => Number(process.hrtime.bigint() - start) / 1e9
const timeEach = (count, run) => {
  const start = process.hrtime.bigint()
  for (let i = 0; i < count; i++) run(i)
  return (seconds(start) * 1000) / count
}

const measure = (jobs) => {
  // Runs last an hour of sim time, so every job is still running while steps are measured.
  const sim = new Simulator({ seed: 1, objects: [benchRuntime], controllers: { trainer: { runTimeMs: 3_600_000 } } })
  const start = process.hrtime.bigint()
  for (let i = 0; i < jobs; i++) {
    const outcome = sim.handle({ ...at, verb: "create", body: job(`seed-${i}`) })
    if (outcome.kind !== "answered" || outcome.response.code !== 201) throw new Error(`create ${i} failed`)
  }
  // JobSet, Jobs, pods and their start each take a step.
  sim.advance(5_000)
  const fillSeconds = seconds(start)
  const pods = sim.system.list("pods")
  const running = pods.filter((p) => p.status?.phase === "Running").length
  if (running !== jobs * nodes) throw new Error(`${running} of ${jobs * nodes} pods running`)
  return {
    pods: pods.length,
    podsPerSecond: pods.length / fillSeconds,
    idleStepMs: timeEach(200, () => sim.advance(1_000)),
    newJobStepMs: timeEach(50, (i) => {
      sim.handle({ ...at, verb: "create", body: job(`step-${i}`) })
      sim.advance(1_000)
    }),
    // the new job's tree settles over the next steps (pods created, bound, started)
    settleStepsMs: timeEach(50, () => sim.advance(1_000)),
    deleteJobStepMs: timeEach(50, (i) => {
      sim.system.delete("trainjobs", "default", `seed-${i}`)
      sim.advance(1_000)
    })
  }
}

const small = measure(100)
const large = measure(1_000)
const row = (label, a, b, unit) => console.log(`${label.padEnd(44)} ${a.padStart(12)} ${b.padStart(12)}  ${unit}`)
console.log(`TrainJobs of ${nodes} nodes, all running`)
row("", "100 jobs", "1,000 jobs", "")
row("pods stored", String(small.pods), String(large.pods), "")
row("pods created, scheduled and started", small.podsPerSecond.toFixed(0), large.podsPerSecond.toFixed(0), "pods/s")
row("idle 1 s clock step", small.idleStepMs.toFixed(3), large.idleStepMs.toFixed(3), "ms")
row("new 8-node TrainJob + 1 s step", small.newJobStepMs.toFixed(3), large.newJobStepMs.toFixed(3), "ms")
row("1 s step while new trees settle", small.settleStepsMs.toFixed(3), large.settleStepsMs.toFixed(3), "ms")
row("delete a running TrainJob + 1 s step", small.deleteJobStepMs.toFixed(3), large.deleteJobStepMs.toFixed(3), "ms")
