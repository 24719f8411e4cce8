// The job-service calls the tests that run `dispatch serve` processes make: JSON over HTTP with one
// bearer token, every job page by page, and the example's queue, entrypoint and experiment.
import { readFileSync } from "node:fs"
import { expect } from "vitest"
import { example } from "./DispatchBinary.ts"

/** One answer: its status and JSON body. */
export interface Answer {
  readonly status: number
  readonly body: any
}

/** A call to the service at `base` (its URL without `/api/v1`) made with `token`. */
export type ServiceCall = (base: string, method: string, path: string, body?: unknown) => Promise<Answer>

/** Calls made with `token`. */
export const serviceCaller =
  (token: string): ServiceCall =>
  async (base, method, path, body) => {
    const response = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { status: response.status, body: (await response.json()) as any }
  }

/** Every job, page by page (the API pages at most 100 at a time). */
export const allJobs = async (call: ServiceCall, base: string): Promise<Array<any>> => {
  const all: Array<any> = []
  for (let index = 0; ; index += 100) {
    const page = await call(base, "GET", `/jobs?index=${index}&pageLength=100`)
    all.push(...page.body.data)
    if (page.body.isComplete || page.body.data.length === 0) return all
  }
}

/**
 * The example backend's queue and an entrypoint on it (made at `base`) and an experiment (made at
 * `experimentBase`); returns the experiment's id and the body of a job submission to it.
 */
export const exampleExperiment = async (call: ServiceCall, base: string, experimentBase: string = base) => {
  const config = JSON.parse(readFileSync(example("config.json"), "utf8"))
  const queue = await call(base, "POST", "/queues", { name: "gpu", description: "", backend: { config, runtime: config.runtimes[0], image: "example/worker:1" } })
  expect(queue.status).toBe(200)
  const entrypoint = await call(base, "POST", "/entrypoints", {
    name: "train", description: "", queues: [queue.body.id], parameters: [], artifactParameters: [], taskGraph: { train: { fit: {} } }, command: ["python", "-m", "train"]
  })
  expect(entrypoint.status).toBe(200)
  const experiment = await call(experimentBase, "POST", "/experiments", { name: "e", entrypoints: [entrypoint.body.id] })
  expect(experiment.status).toBe(200)
  return { experiment: experiment.body.id as number, job: { entrypoint: entrypoint.body.id, queue: queue.body.id, values: {}, timeout: "1h", description: "" } }
}
