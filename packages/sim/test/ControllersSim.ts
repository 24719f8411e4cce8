// Shared by the controller scenario tests: a simulator seeded with runtimes, and REST calls made through
// `sim.handle` the way a client makes them.
import { expect } from "vitest"
import { type ApiResponse, type KubeObject, type SystemClient } from "../src/Api.ts"
import { Resources } from "../src/kinds/Builtin.ts"
import type { ControllerOptions } from "../src/controllers/index.ts"
import { Simulator } from "../src/Simulator.ts"

/**
 * The controller's own client, handing out copies instead of the store's objects (so a controller that
 * skips what it has seen never skips); writes still go out under the controller's manager name.
 */
export const copying = (system: SystemClient): SystemClient => ({
  ...system,
  get: (resource, namespace, name) => {
    const found = system.get(resource, namespace, name)
    return found === undefined ? undefined : structuredClone(found)
  },
  list: (resource, namespace, labelSelector) => system.list(resource, namespace, labelSelector).map((o) => structuredClone(o))
})

const containers = (name: string, image: string) => [{ name, image }]

const replicatedJob = (name: string, step: string) => ({
  name,
  template: {
    metadata: { labels: { "trainer.kubeflow.org/trainjob-ancestor-step": step } },
    spec: { template: { spec: { containers: containers(name, `example.org/${name}:1`) } } }
  }
})

/** A ClusterTrainingRuntime with only the trainer step. */
export const plainRuntime: KubeObject = {
  apiVersion: "trainer.kubeflow.org/v1alpha1",
  kind: "ClusterTrainingRuntime",
  metadata: { name: "torch-distributed" },
  spec: { mlPolicy: { numNodes: 1, torch: {} }, template: { spec: { replicatedJobs: [replicatedJob("node", "trainer")] } } }
}

/** A TrainingRuntime in "default" with a dataset initializer before the trainer step. */
export const initializerRuntime: KubeObject = {
  apiVersion: "trainer.kubeflow.org/v1alpha1",
  kind: "TrainingRuntime",
  metadata: { name: "torch-with-cache", namespace: "default" },
  spec: {
    mlPolicy: { numNodes: 1, torch: {} },
    template: { spec: { replicatedJobs: [replicatedJob("dataset-initializer", "dataset-initializer"), replicatedJob("node", "trainer")] } }
  }
}

/** A simulator (uid seed 7) with both runtimes created and the given controller options. */
export const simulator = (controllers?: ControllerOptions): Simulator =>
  new Simulator({ seed: 7, objects: [plainRuntime, initializerRuntime], ...(controllers === undefined ? {} : { controllers }) })

const where = (resource: string) => {
  const found = Resources.find((r) => r.plural === resource)
  if (found === undefined) throw new Error(`no resource ${resource}`)
  return { group: found.group, version: found.versions[0] ?? "v1", resource, ...(found.namespaced ? { namespace: "default" } : {}) }
}

const answered = (sim: Simulator, request: Parameters<Simulator["handle"]>[0]): ApiResponse => {
  const outcome = sim.handle(request)
  if (outcome.kind !== "answered") throw new Error(`call ${request.verb} ${request.resource} was ${outcome.kind}`)
  return outcome.response
}

/** POSTs an object; returns the answer. */
export const create = (sim: Simulator, resource: string, body: KubeObject): ApiResponse =>
  answered(sim, { verb: "create", ...where(resource), body })

/** GETs an object (fails the test if it is not there). */
export const get = (sim: Simulator, resource: string, name: string): KubeObject => {
  const response = answered(sim, { verb: "get", ...where(resource), name })
  expect(response.code).toBe(200)
  return response.body as KubeObject
}

/** Lists objects, optionally by label selector. */
export const list = (sim: Simulator, resource: string, labelSelector?: string): ReadonlyArray<KubeObject> => {
  const response = answered(sim, { verb: "list", ...where(resource), ...(labelSelector === undefined ? {} : { labelSelector }) })
  expect(response.code).toBe(200)
  return ((response.body as { items?: ReadonlyArray<KubeObject> }).items ?? [])
}

/** Sends a JSON merge patch (to the status subresource when asked); returns the answer. */
export const mergePatch = (sim: Simulator, resource: string, name: string, body: unknown, subresource?: "status"): ApiResponse =>
  answered(sim, { verb: "patch", patchType: "merge", ...where(resource), name, body, ...(subresource === undefined ? {} : { subresource }) })

/** A TrainJob on one of the seeded runtimes. */
export const trainJob = (name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "trainer.kubeflow.org/v1alpha1",
  kind: "TrainJob",
  metadata: { name, ...metadata },
  spec: { runtimeRef: { name: "torch-distributed" }, ...spec }
})

/** The condition of that type in an object's status, if any. */
export const condition = (object: KubeObject, type: string): Record<string, unknown> | undefined =>
  ((object["status"] as { conditions?: ReadonlyArray<Record<string, unknown>> } | undefined)?.conditions ?? []).find((c) => c["type"] === type)

/** An object's status. */
export const statusOf = (object: KubeObject): Record<string, unknown> | undefined => object["status"] as Record<string, unknown> | undefined

/** An object's spec. */
export const specOf = (object: KubeObject): Record<string, unknown> => (object["spec"] ?? {}) as Record<string, unknown>
