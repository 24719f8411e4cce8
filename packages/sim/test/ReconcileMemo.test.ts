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
import { RuntimeReaders, runtimeKey, runtimeKeyOf } from "../src/controllers/trainer/RuntimeReaders.ts"
import { trainerController } from "../src/controllers/trainer/TrainerController.ts"
import { trainJobWebhook } from "../src/controllers/trainer/TrainJobWebhook.ts"
import { Simulator } from "../src/Simulator.ts"
import { copying, create, initializerRuntime, list, mergePatch, plainRuntime, trainJob } from "./ControllersSim.ts"

// Operations on TrainJobs and their runtimes, interleaved with clock moves.
const operation = fc.oneof(
  fc.record({
    type: fc.constant("create" as const),
    name: fc.constantFrom("j0", "j1", "j2", "j3"),
    suspend: fc.boolean(),
    deadlineSeconds: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
    fails: fc.boolean(),
    runtime: fc.constantFrom("cluster", "namespaced", "missing", "deadline")
  }),
  fc.record({ type: fc.constant("suspend" as const), name: fc.constantFrom("j0", "j1", "j2", "j3"), suspend: fc.boolean() }),
  fc.record({ type: fc.constant("delete" as const), name: fc.constantFrom("j0", "j1", "j2", "j3"), foreground: fc.boolean() }),
  // the cluster runtime goes, or comes back with one or two replicated jobs
  fc.record({ type: fc.constant("runtime" as const), shape: fc.constantFrom("absent", "plain", "initializer") }),
  // the namespaced runtime goes, or comes back with one or two replicated jobs (only its readers are looked at again)
  fc.record({ type: fc.constant("namespacedRuntime" as const), shape: fc.constantFrom("absent", "plain", "initializer") }),
  // the namespaced runtime's metadata alone changes (as Start's owner reference does): its spec is the same
  fc.record({ type: fc.constant("runtimeLabel" as const), value: fc.constantFrom("a", "b") }),
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

const runtimeRef = (runtime: "cluster" | "namespaced" | "missing" | "deadline") =>
  runtime === "cluster"
    ? { name: "torch-distributed" }
    : runtime === "namespaced"
      ? { name: "torch-with-cache", kind: "TrainingRuntime" }
      : runtime === "deadline"
        ? { name: deadlineRuntimeName, kind: "TrainingRuntime" }
        : { name: "absent-runtime" }

const apply = (sim: Simulator, op: Operation): void => {
  const where = { group: "trainer.kubeflow.org", version: "v1alpha1", namespace: "default" }
  switch (op.type) {
    case "create":
      create(sim, "trainjobs", trainJob(op.name, {
        suspend: op.suspend,
        runtimeRef: runtimeRef(op.runtime),
        ...(op.deadlineSeconds === undefined ? {} : { activeDeadlineSeconds: op.deadlineSeconds })
      }, op.fails ? { labels: { scenario: "fails" } } : {}))
      return
    case "suspend":
      mergePatch(sim, "trainjobs", op.name, { spec: { suspend: op.suspend } })
      return
    case "delete":
      sim.handle({ verb: "delete", ...where, resource: "trainjobs", name: op.name, ...(op.foreground ? { propagationPolicy: "Foreground" as const } : {}) })
      return
    case "runtime": {
      const runtimes = { group: "trainer.kubeflow.org", version: "v1alpha1", resource: "clustertrainingruntimes" }
      sim.handle({ verb: "delete", ...runtimes, name: "torch-distributed" })
      if (op.shape === "plain") sim.handle({ verb: "create", ...runtimes, body: plainRuntime })
      if (op.shape === "initializer") sim.handle({ verb: "create", ...runtimes, body: { ...initializerRuntime, kind: "ClusterTrainingRuntime", metadata: { name: "torch-distributed" } } })
      return
    }
    case "namespacedRuntime": {
      const runtimes = { group: "trainer.kubeflow.org", version: "v1alpha1", resource: "trainingruntimes", namespace: "default" }
      sim.handle({ verb: "delete", ...runtimes, name: "torch-with-cache" })
      if (op.shape === "plain") sim.handle({ verb: "create", ...runtimes, body: { ...plainRuntime, kind: "TrainingRuntime", metadata: { name: "torch-with-cache", namespace: "default" } } })
      if (op.shape === "initializer") sim.handle({ verb: "create", ...runtimes, body: initializerRuntime })
      return
    }
    case "runtimeLabel":
      mergePatch(sim, "trainingruntimes", "torch-with-cache", { metadata: { labels: { edited: op.value } } })
      return
    case "advance":
      sim.advance(op.ms)
  }
}

const options: TrainerOptions = {
  runTimeMs: 3000,
  outcomes: [{ labels: { scenario: "fails" }, result: "Failed", afterMs: 1500, message: "scripted failure" }]
}

// A controller handed copies: no object is ever the one it settled, so it never skips a look.
const copies = (controller: Controller): Controller => ({ name: controller.name, reconcile: (system) => controller.reconcile(copying(system)) })

// The same controllers as the simulator installs (Trainer alone, or with the object tree's), all handed copies.
const unskipping = (tree: boolean): Simulator => {
  const sim = new Simulator({ seed: 7, objects: seeds, controllers: { trainer: { installed: false } } })
  sim.addAdmission(trainJobWebhook)
  if (!tree) {
    sim.addController(copies(trainerController(options)))
    return sim
  }
  const events = eventRecorder()
  const trainer = trainerController(options, true, (listener) => sim.onChange(listener))
  const controllers = [trainer, jobSetController(sim), jobController(sim, events), scheduler(sim, events, defaultNode), kubelet(sim, events, defaultNode, clockRuntime, options)]
  sim.addController(inTurn("workloads", sim, controllers.map(copies), [], () => trainer.afterStep(copying(sim.clientOf(trainer)))))
  return sim
}

// Runs the operations on both simulators, comparing the TrainJobs (and with the tree, every object of it) after each.
const expectSameAsReference = (ops: ReadonlyArray<Operation>, tree = false): void => {
  const skipping = new Simulator({ seed: 7, objects: seeds, controllers: { trainer: options, ...(tree ? {} : { workloads: { installed: false } }) } })
  const reference = unskipping(tree)
  const kinds = tree ? ["trainjobs", "jobsets", "jobs", "pods", "events"] : ["trainjobs"]
  for (const op of [...ops, { type: "advance" as const, ms: 10_000 }]) {
    apply(skipping, op)
    apply(reference, op)
    for (const kind of kinds) expect(list(skipping, kind)).toEqual(list(reference, kind))
  }
}

describe("skipping settled TrainJobs", () => {
  propTest.prop([fc.array(operation, { maxLength: 30 })], { numRuns: 100 })(
    "Trainer writes exactly what it writes when it looks at every job on every step",
    expectSameAsReference
  )

  propTest.prop([fc.array(operation, { maxLength: 25 })], { numRuns: 60 })(
    "with the object tree, everything is written exactly as when every controller looks at every object on every step",
    (ops) => expectSameAsReference(ops, true)
  )

  it("writes the object tree as controllers that never skip do when a Job hits its own deadline and another's run fails", () => {
    expectSameAsReference([
      { type: "create", name: "j0", suspend: false, deadlineSeconds: undefined, fails: false, runtime: "deadline" },
      { type: "create", name: "j1", suspend: false, deadlineSeconds: undefined, fails: true, runtime: "namespaced" },
      ...Array.from({ length: 8 }, () => ({ type: "advance" as const, ms: 400 }))
    ], true)
  })

  it("looks again at a settled running job when its runtime is replaced", () => {
    expectSameAsReference([
      { type: "create", name: "j0", suspend: false, deadlineSeconds: undefined, fails: false, runtime: "cluster" },
      { type: "advance", ms: 2000 },
      { type: "runtime", shape: "initializer" },
      { type: "advance", ms: 500 }
    ])
  })

  it("looks again at the settled running jobs that read a replaced runtime, whichever kind it is", () => {
    expectSameAsReference([
      { type: "create", name: "j0", suspend: false, deadlineSeconds: undefined, fails: false, runtime: "cluster" },
      { type: "create", name: "j1", suspend: false, deadlineSeconds: undefined, fails: false, runtime: "namespaced" },
      { type: "advance", ms: 2000 },
      { type: "namespacedRuntime", shape: "plain" },
      { type: "advance", ms: 500 },
      { type: "runtime", shape: "initializer" },
      { type: "advance", ms: 500 },
      { type: "namespacedRuntime", shape: "absent" },
      { type: "advance", ms: 500 },
      { type: "namespacedRuntime", shape: "initializer" },
      { type: "advance", ms: 500 }
    ])
  })

  it("knows which jobs read which runtime as each job's last change says", () => {
    const readers = new RuntimeReaders()
    const cluster = runtimeKey("clustertrainingruntimes", undefined, "torch")
    const namespaced = runtimeKey("trainingruntimes", "team", "torch")
    expect(runtimeKeyOf({ metadata: { name: "a", namespace: "team" }, spec: { runtimeRef: { name: "torch" } } })).toBe(cluster)
    expect(runtimeKeyOf({ metadata: { name: "a", namespace: "team" }, spec: { runtimeRef: { name: "torch", kind: "TrainingRuntime" } } })).toBe(namespaced)
    expect(runtimeKeyOf({ metadata: { name: "a" }, spec: { runtimeRef: { name: "torch", kind: "TrainingRuntime" } } })).toBe(runtimeKey("trainingruntimes", "default", "torch"))
    expect(runtimeKeyOf({ metadata: { name: "a" }, spec: { runtimeRef: { name: "torch", kind: "Other" } } })).toBeUndefined()
    expect(runtimeKeyOf({ metadata: { name: "a" }, spec: { runtimeRef: { name: "torch", apiGroup: "example.org" } } })).toBeUndefined()
    readers.track("team/a", cluster)
    readers.track("team/b", cluster)
    expect([...readers.readersOf(cluster)]).toEqual(["team/a", "team/b"])
    // a job that moves to another runtime leaves the first one's readers
    readers.track("team/a", namespaced)
    expect([...readers.readersOf(cluster)]).toEqual(["team/b"])
    expect([...readers.readersOf(namespaced)]).toEqual(["team/a"])
    // a job that is gone, or names no runtime, reads none
    readers.track("team/a", undefined)
    readers.track("team/b", undefined)
    expect([...readers.readersOf(cluster)]).toEqual([])
    expect([...readers.readersOf(namespaced)]).toEqual([])
  })

  it("knows a job only while its last change named a runtime", () => {
    const readers = new RuntimeReaders()
    const cluster = runtimeKey("clustertrainingruntimes", undefined, "torch")
    expect(readers.knows("team/a")).toBe(false)
    readers.track("team/a", cluster)
    expect(readers.knows("team/a")).toBe(true)
    readers.track("team/a", undefined)
    expect(readers.knows("team/a")).toBe(false)
  })

  it("looks again at a settled suspended job when it is resumed, and at a running one when its run ends", () => {
    expectSameAsReference([
      { type: "create", name: "j1", suspend: true, deadlineSeconds: 6, fails: true, runtime: "namespaced" },
      { type: "advance", ms: 3000 },
      { type: "suspend", name: "j1", suspend: false },
      ...Array.from({ length: 8 }, () => ({ type: "advance" as const, ms: 400 }))
    ])
  })

  it("skips an object only while it, its input and the clock allow", () => {
    const memo = new ReconcileMemo()
    const job: KubeObject = { metadata: { name: "a", namespace: "default" } }
    const runtime: KubeObject = { metadata: { name: "r" } }
    memo.settle(job, runtime, 5000)
    expect(memo.settledUntil(job, 4999, () => runtime)).toBe(5000)
    expect(memo.settledUntil(job, 5000, () => runtime)).toBeUndefined()
    expect(memo.settledUntil(job, 0, () => ({ ...runtime }))).toBeUndefined()
    expect(memo.settledUntil({ ...job }, 0, () => runtime)).toBeUndefined()
    // settled without an input, only the object and the clock count
    memo.settle(job, undefined, Number.POSITIVE_INFINITY)
    expect(memo.settledUntil(job, 1e15, () => undefined)).toBe(Number.POSITIVE_INFINITY)
  })
})
