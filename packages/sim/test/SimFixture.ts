// Shared by the core's tests: a simulator without Trainer's webhook (so any runtime name will do
// unless a test installs it), and REST calls made through `handle` the way a face makes them.
import { expect } from "vitest"
import { type ApiRequest, type ApiResponse, type KubeObject } from "../src/Api.ts"
import { Resources } from "../src/kinds/Builtin.ts"
import { Simulator, type SimulatorOptions } from "../src/Simulator.ts"

/** A simulator with no controllers, seed 7, unless options say otherwise. */
export const bareSimulator = (options: SimulatorOptions = {}): Simulator =>
  new Simulator({ seed: 7, controllers: { trainer: { installed: false } }, ...options })

/** Where a resource lives, in namespace "default" when namespaced. */
export const at = (resource: string, namespace = "default"): Pick<ApiRequest, "group" | "version" | "resource" | "namespace"> => {
  const found = Resources.find((r) => r.plural === resource)
  if (found === undefined) throw new Error(`no resource ${resource}`)
  return { group: found.group, version: found.versions[0] ?? "v1", resource, ...(found.namespaced ? { namespace } : {}) }
}

/** Sends a request that must be answered, returning the answer. */
export const call = (sim: Simulator, request: ApiRequest): ApiResponse => {
  const outcome = sim.handle(request)
  if (outcome.kind !== "answered") throw new Error(`${request.verb} ${request.resource} was ${outcome.kind}`)
  return outcome.response
}

/** A TrainJob body. */
export const trainJob = (name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "trainer.kubeflow.org/v1alpha1",
  kind: "TrainJob",
  metadata: { name, ...metadata },
  spec: { runtimeRef: { name: "torch-distributed" }, ...spec }
})

/** A ClusterTrainingRuntime body. */
export const clusterRuntime = (name: string, metadata: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "trainer.kubeflow.org/v1alpha1",
  kind: "ClusterTrainingRuntime",
  metadata: { name, ...metadata },
  spec: { mlPolicy: { numNodes: 1, torch: {} }, template: { spec: { replicatedJobs: [] } } }
})

/** A Workload body with one pod set. */
export const workload = (name: string, metadata: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "kueue.x-k8s.io/v1beta2",
  kind: "Workload",
  metadata: { name, ...metadata },
  spec: { podSets: [{ name: "node", count: 1, template: { spec: { containers: [] } } }] }
})

/** A Namespace body. */
export const namespace = (name: string): KubeObject => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } })

/** Creates an object, expecting 201; returns the stored object. */
export const created = (sim: Simulator, resource: string, body: KubeObject, ns = "default"): KubeObject => {
  const response = call(sim, { verb: "create", ...at(resource, ns), body })
  expect(response.code, JSON.stringify(response.body)).toBe(201)
  return response.body as KubeObject
}

/** Reads an object, or undefined on 404. */
export const read = (sim: Simulator, resource: string, name: string, ns = "default"): KubeObject | undefined => {
  const response = call(sim, { verb: "get", ...at(resource, ns), name })
  if (response.code === 404) return undefined
  expect(response.code).toBe(200)
  return response.body as KubeObject
}

/** The metadata of an object. */
export const meta = (object: unknown): Record<string, unknown> => ((object as KubeObject).metadata ?? {}) as Record<string, unknown>

/** The Status body of an answer. */
export const status = (response: ApiResponse): Record<string, unknown> => response.body as Record<string, unknown>

/** An owner reference to a stored object. */
export const ownerRef = (owner: KubeObject, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: owner.apiVersion,
  kind: owner.kind,
  name: meta(owner)["name"],
  uid: meta(owner)["uid"],
  ...extra
})

/** The causes of a create that must be refused as Invalid (422), each as `field: message`. */
export const invalidCauses = (sim: Simulator, resource: string, body: KubeObject): ReadonlyArray<string> => {
  const answer = call(sim, { verb: "create", ...at(resource), body })
  expect(answer.code).toBe(422)
  const details = (answer.body as { details?: { causes?: ReadonlyArray<{ field: string; message: string }> } }).details
  return (details?.causes ?? []).map((c) => `${c.field}: ${c.message}`)
}
