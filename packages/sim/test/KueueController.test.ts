import { test as propTest, fc } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { KubeObject } from "../src/Api.ts"
import { kueueController } from "../src/controllers/kueue/KueueController.ts"
import { kueueTrainJobWebhook, kueueWorkloadWebhook } from "../src/controllers/kueue/KueueWebhook.ts"
import type { ControllerOptions } from "../src/controllers/Options.ts"
import { trainerController } from "../src/controllers/trainer/TrainerController.ts"
import { trainJobWebhook } from "../src/controllers/trainer/TrainJobWebhook.ts"
import { Simulator } from "../src/Simulator.ts"
import { copying, create, initializerRuntime, list, mergePatch, plainRuntime, trainJob } from "./ControllersSim.ts"

const names = fc.constantFrom("k0", "k1", "k2")

// Queued jobs, their Workloads' gates and checks, deletes, and clock moves.
const operation = fc.oneof(
  fc.record({ type: fc.constant("create" as const), name: names, queue: fc.constantFrom("team", "nowhere"), gated: fc.boolean() }),
  fc.record({ type: fc.constant("open" as const), name: names }),
  fc.record({ type: fc.constant("check" as const), name: names, state: fc.constantFrom("Ready", "Retry", "Rejected", "Pending") }),
  fc.record({ type: fc.constant("delete" as const), name: names }),
  fc.record({ type: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 2500 }) })
)

type Operation = typeof operation extends fc.Arbitrary<infer A> ? A : never

const gate = "dispatch.example.org/start"

const workloadOf = (sim: Simulator, job: string): string | undefined => {
  const uid = sim.system.get("trainjobs", "default", job)?.metadata?.["uid"]
  const found = uid === undefined ? undefined : list(sim, "workloads", `kueue.x-k8s.io/job-uid=${String(uid)}`)[0]
  return found === undefined ? undefined : String(found.metadata?.["name"])
}

const apply = (sim: Simulator, op: Operation): void => {
  switch (op.type) {
    case "create":
      create(sim, "trainjobs", trainJob(op.name, { suspend: false }, {
        labels: { "kueue.x-k8s.io/queue-name": op.queue },
        ...(op.gated ? { annotations: { "kueue.x-k8s.io/admission-gated-by": gate } } : {})
      }))
      return
    case "open": {
      const workload = workloadOf(sim, op.name)
      if (workload !== undefined) mergePatch(sim, "workloads", workload, { metadata: { annotations: { "kueue.x-k8s.io/admission-gated-by": null } } })
      return
    }
    case "check": {
      const workload = workloadOf(sim, op.name)
      const stamp = new Date(sim.now()).toISOString().replace(/\.\d{3}Z$/, "Z")
      if (workload !== undefined) {
        mergePatch(sim, "workloads", workload, { status: { admissionChecks: [{ name: "capacity", state: op.state, lastTransitionTime: stamp, message: op.state }] } }, "status")
      }
      return
    }
    case "delete":
      sim.handle({ verb: "delete", group: "trainer.kubeflow.org", version: "v1alpha1", resource: "trainjobs", namespace: "default", name: op.name })
      return
    case "advance":
      sim.advance(op.ms)
  }
}

const optionsWith = (workloadDelayMs: number): ControllerOptions => ({
  trainer: { runTimeMs: 3000 },
  kueue: { workloadDelayMs, queues: { team: { admissionChecks: ["capacity"], workloads: 1 } } }
})

// The same webhooks and controllers, run at every step and handed copies.
const everyStep = (options: ControllerOptions): Simulator => {
  const sim = new Simulator({ seed: 7, objects: [plainRuntime, initializerRuntime], controllers: { trainer: { installed: false } } })
  for (const admission of [kueueTrainJobWebhook, kueueWorkloadWebhook, trainJobWebhook]) sim.addAdmission(admission)
  for (const controller of [trainerController(options.trainer ?? {}), kueueController(options.kueue ?? {})]) {
    sim.addController({ name: controller.name, reconcile: (system) => controller.reconcile(copying(system)) })
  }
  return sim
}

const expectSameAsEveryStep = (workloadDelayMs: number, ops: ReadonlyArray<Operation>): void => {
  const options = optionsWith(workloadDelayMs)
  const skipping = new Simulator({ seed: 7, objects: [plainRuntime, initializerRuntime], controllers: { ...options, workloads: { installed: false } } })
  const reference = everyStep(options)
  const state = (sim: Simulator): ReadonlyArray<KubeObject> => [...list(sim, "trainjobs"), ...list(sim, "workloads")]
  for (const op of [...ops, { type: "advance" as const, ms: 10_000 }]) {
    apply(skipping, op)
    apply(reference, op)
    expect(state(skipping)).toEqual(state(reference))
  }
}

describe("skipping idle Trainer and Kueue passes", () => {
  propTest.prop([fc.integer({ min: 0, max: 3000 }), fc.array(operation, { maxLength: 25 })], { numRuns: 60 })(
    "Trainer and Kueue write exactly what they write when reconciled at every step",
    expectSameAsEveryStep
  )

  it("wakes Kueue when a job's Workload delay ends, with nothing written meanwhile", () => {
    expectSameAsEveryStep(2500, [
      { type: "create", name: "k0", queue: "team", gated: false },
      ...Array.from({ length: 4 }, () => ({ type: "advance" as const, ms: 1000 })),
      { type: "check", name: "k0", state: "Ready" },
      ...Array.from({ length: 4 }, () => ({ type: "advance" as const, ms: 1000 }))
    ])
  })
})
