// The simulator's controllers' CPU per new TrainJob: N suspended TrainJobs (what a plain-mode Start
// leaves) are created through the simulator's in-process face, then the clock moves until the controllers
// are idle; the figure is the CPU those steps took per TrainJob (Trainer's JobSet, JobSet's Job, the Job's
// status and Event, every status Trainer derives). Run alone: `node bench/sim-controllers.mjs [N]`.
import { Simulator } from "../packages/sim/dist/index.js"
import { benchRuntime } from "./lib/sim-runtime.mjs"

const count = Number(process.argv[2] ?? 1_000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
const trainJob = (i) => ({
  apiVersion: "trainer.kubeflow.org/v1alpha1",
  kind: "TrainJob",
  metadata: { name: `job-${i}`, namespace: "default" },
  spec: { suspend: true, runtimeRef: { name: "torch-distributed" }, trainer: { image: "example.org/train:1", command: ["python", "train.py"] } }
})
const cpu = () => {
  const { user, system } = process.cpuUsage()
  return user + system
}
const perJob = []
for (let round = 0; round < rounds; round++) {
  const sim = new Simulator({ seed: 1, objects: [benchRuntime] })
  for (let i = 0; i < count; i++) {
    const outcome = sim.handle({ verb: "create", group: "trainer.kubeflow.org", version: "v1alpha1", resource: "trainjobs", namespace: "default", body: trainJob(i) })
    if (outcome.kind !== "answered" || outcome.response.code !== 201) throw new Error(JSON.stringify(outcome))
  }
  const c0 = cpu()
  sim.advance(5_000)
  perJob.push((cpu() - c0) / count)
  const jobSets = sim.system.list("jobsets").length
  if (jobSets !== count) throw new Error(`${jobSets} JobSets for ${count} TrainJobs`)
}
perJob.sort((a, b) => a - b)
console.log(`controllers' CPU per new suspended TrainJob (${count} at once, ${rounds} rounds): median ${perJob[Math.floor(rounds / 2)].toFixed(0)} µs, min ${perJob[0].toFixed(0)} µs`)
