import { test as propTest, fc } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { Controller, KubeObject } from "../src/Api.ts"
import type { TrainerOptions } from "../src/controllers/Options.ts"
import { jobController } from "../src/controllers/job/JobController.ts"
import { jobSetController } from "../src/controllers/jobset/JobSetController.ts"
import { clockRuntime } from "../src/controllers/kubelet/ContainerRuntime.ts"
import { kubelet } from "../src/controllers/kubelet/Kubelet.ts"
import { defaultNode } from "../src/controllers/scheduler/Nodes.ts"
import { scheduler } from "../src/controllers/scheduler/Scheduler.ts"
import { eventRecorder } from "../src/controllers/shared/Events.ts"
import { inTurn } from "../src/controllers/shared/InTurn.ts"
import { ReconcileMemo } from "../src/controllers/shared/ReconcileMemo.ts"
import { trainerController } from "../src/controllers/trainer/TrainerController.ts"
import { trainJobWebhook } from "../src/controllers/trainer/TrainJobWebhook.ts"
import { Simulator } from "../src/Simulator.ts"
import { copying, create, initializerRuntime, list, mergePatch, plainRuntime, trainJob } from "./controllers-sim.ts"

// Operations on TrainJobs (each run as a JobSet, Jobs and pods) and their runtime, interleaved with clock moves.
const operation = fc.oneof(
  fc.record({
    type: fc.constant("create" as const),
    name: fc.constantFrom("j0", "j1", "j2"),
    suspend: fc.boolean(),
    deadlineSeconds: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
    fails: fc.boolean(),
    runtime: fc.constantFrom("cluster", "namespaced", "deadline")
  }),
  fc.record({ type: fc.constant("suspend" as const), name: fc.constantFrom("j0", "j1", "j2"), suspend: fc.boolean() }),
  fc.record({ type: fc.constant("delete" as const), name: fc.constantFrom("j0", "j1", "j2") }),
  fc.record({ type: fc.constant("runtime" as const), numNodes: fc.integer({ min: 1, max: 2 }) }),
  fc.record({ type: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 2500 }) })
)

type Operation = typeof operation extends fc.Arbitrary<infer A> ? A : never

const deadlineRuntimeName = "torch-with-deadline"

// A runtime whose Jobs fail by their own deadline (2 s), before the run's scripted end.
const deadlineRuntime: KubeObject = {
  apiVersion: "trainer.kubeflow.org/v1alpha1",
  kind: "TrainingRuntime",
  metadata: { name: deadlineRuntimeName, namespace: "default" },
  spec: {
    mlPolicy: { numNodes: 1, torch: {} },
    template: { spec: { replicatedJobs: [{
      name: "node",
      template: {
        metadata: { labels: { "trainer.kubeflow.org/trainjob-ancestor-step": "trainer" } },
        spec: { activeDeadlineSeconds: 2, template: { spec: { containers: [{ name: "node", image: "example.org/node:1" }] } } }
      }
    }] } }
  }
}

const seeds = [plainRuntime, initializerRuntime, deadlineRuntime]

const apply = (sim: Simulator, op: Operation): void => {
  switch (op.type) {
    case "create":
      create(sim, "trainjobs", trainJob(op.name, {
        suspend: op.suspend,
        runtimeRef: op.runtime === "cluster" ? { name: "torch-distributed" } : { name: op.runtime === "deadline" ? deadlineRuntimeName : "torch-with-cache", kind: "TrainingRuntime" },
        ...(op.deadlineSeconds === undefined ? {} : { activeDeadlineSeconds: op.deadlineSeconds })
      }, op.fails ? { labels: { scenario: "fails" } } : {}))
      return
    case "suspend":
      mergePatch(sim, "trainjobs", op.name, { spec: { suspend: op.suspend } })
      return
    case "delete":
      sim.handle({ verb: "delete", group: "trainer.kubeflow.org", version: "v1alpha1", namespace: "default", resource: "trainjobs", name: op.name, propagationPolicy: "Foreground" })
      return
    case "runtime":
      mergePatch(sim, "trainingruntimes", "torch-with-cache", { spec: { mlPolicy: { numNodes: op.numNodes } } })
      return
    case "advance":
      sim.advance(op.ms)
  }
}

const options: TrainerOptions = {
  runTimeMs: 3000,
  outcomes: [{ labels: { scenario: "fails" }, result: "Failed", afterMs: 1500, message: "scripted failure" }]
}

// The object tree's controllers, as the simulator installs them, but each handed copies: no object is
// ever the one a controller settled, so none ever skips a look.
const unskipping = (): Simulator => {
  const sim = new Simulator({ seed: 7, objects: seeds, controllers: { trainer: { installed: false } } })
  sim.addAdmission(trainJobWebhook)
  const events = eventRecorder()
  const trainer = trainerController(options, true, (listener) => sim.onChange(listener))
  const copies = (controller: Controller): Controller => ({ name: controller.name, reconcile: (system) => controller.reconcile(copying(system)) })
  const tree = [trainer, jobSetController(sim), jobController(sim, events), scheduler(sim, events, defaultNode), kubelet(sim, events, defaultNode, clockRuntime, options)]
  sim.addController(inTurn("workloads", sim, tree.map(copies), [], () => trainer.afterStep(copying(sim.clientOf(trainer)))))
  return sim
}

const kinds = ["trainjobs", "jobsets", "jobs", "pods", "events"]

// Runs the operations on both simulators, comparing every object of the tree after each.
const expectSameAsReference = (ops: ReadonlyArray<Operation>): void => {
  const skipping = new Simulator({ seed: 7, objects: seeds, controllers: { trainer: options } })
  const reference = unskipping()
  for (const op of [...ops, { type: "advance" as const, ms: 10_000 }]) {
    apply(skipping, op)
    apply(reference, op)
    for (const kind of kinds) expect(list(skipping, kind)).toEqual(list(reference, kind))
  }
}

describe("skipping settled JobSets and Jobs", () => {
  propTest.prop([fc.array(operation, { maxLength: 25 })], { numRuns: 60 })(
    "the object tree is written exactly as when every controller looks at every queued object",
    expectSameAsReference
  )

  it("looks again at a settled Job when its deadline comes, and at a settled JobSet when its Job ends", () => {
    expectSameAsReference([
      { type: "create", name: "j0", suspend: false, deadlineSeconds: undefined, fails: false, runtime: "deadline" },
      { type: "create", name: "j1", suspend: false, deadlineSeconds: undefined, fails: true, runtime: "namespaced" },
      ...Array.from({ length: 8 }, () => ({ type: "advance" as const, ms: 400 }))
    ])
  })

  it("skips an object only while every input it was settled with is the same", () => {
    const memo = new ReconcileMemo()
    const jobSet: KubeObject = { metadata: { name: "a" } }
    const jobs: ReadonlyArray<KubeObject | undefined> = [{ metadata: { name: "a-node-0" } }, undefined]
    memo.settle(jobSet, jobs, Number.POSITIVE_INFINITY)
    expect(memo.settledUntil(jobSet, 0, () => [...jobs])).toBe(Number.POSITIVE_INFINITY)
    expect(memo.settledUntil(jobSet, 0, () => [jobs[0], { metadata: { name: "a-node-1" } }])).toBeUndefined()
    expect(memo.settledUntil(jobSet, 0, () => [{ ...jobs[0] }, undefined])).toBeUndefined()
    expect(memo.settledUntil(jobSet, 0, () => [jobs[0]])).toBeUndefined()
  })
})
