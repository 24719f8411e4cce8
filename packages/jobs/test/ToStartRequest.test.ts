import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { decodeConfig, decodeStartRequest, renderStart, type KubeObject } from "@dispatch/render"
import { describe, expect, it } from "vitest"
import { catalogOf, documentFromEnv, Entrypoint, newJob, Queue, toStartRequest, ulid, validateJobRequest, type Job } from "../src/index.ts"
import { catalog, decoded, entrypoint, failureOf, otherEntrypoint, queues, runtime, runtimeObject, successOf, tagsOf, validRequest } from "./Fixtures.ts"

const seed = { time: 1_764_500_000_000, entropy: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }
const queue = (id: number): Queue => queues.find((q) => q.id === id)!
const jobFrom = (request = validRequest, id = 7): Job => newJob(successOf(validateJobRequest(1, request, catalog)), id, "2026-11-30T12:00:00.000Z")

const seedArb = fc.record({
  time: fc.integer({ min: 0, max: 2 ** 48 - 1 }),
  entropy: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 10, maxLength: 10 })
})
const swapsArb = fc.record({ training_method: fc.constantFrom("method_a", "method_b"), optimizer: fc.constantFrom("sgd", "adam") })
const noteArb = fc.string({ maxLength: 300, unit: "binary" })

describe("toStartRequest", () => {
  test.prop([seedArb, swapsArb, noteArb, fc.integer({ min: 1, max: 1_000_000 }), fc.constantFrom(100, 101)])(
    "what it makes, render decodes and renders into a TrainJob",
    (s, swaps, note, id, queueId) => {
      const entry = queueId === 101 ? otherEntrypoint : entrypoint
      const request = queueId === 101 ? { entrypoint: 11, queue: 101 } : { ...validRequest, swaps, values: { ...validRequest.values, note } }
      const q = queue(queueId)
      const start = successOf(toStartRequest(jobFrom(request, id), q, entry, s))
      const wire = successOf(decodeStartRequest(JSON.parse(JSON.stringify(start))))
      const manifests = successOf(renderStart(wire, successOf(decodeConfig(q.backend.config)), runtimeObject))
      const trainer = (manifests.trainJob["spec"] as KubeObject)["trainer"] as KubeObject
      expect(trainer["image"]).toBe(queueId === 101 ? "example/other:1" : "example/dioptra-worker:1")
    }
  )

  it("maps a job onto the StartRequest: fresh JobID, submission 1, attempt 0, image, command, env, time limit, runtime", () => {
    const job = jobFrom()
    const start = successOf(toStartRequest(job, queue(100), entrypoint, seed))
    expect(start).toMatchObject({
      job: successOf(ulid(seed)),
      generation: 0,
      submission: 1,
      attempt: 0,
      spec: {
        name: "dioptra-job-7",
        command: ["python", "-m", "dioptra_runner"],
        nodes: 2,
        gpusPerNode: 1,
        timeLimit: 7200,
        extensions: { "dispatch/Image": { ref: "example/dioptra-worker:1" }, "kubeflow/RuntimeRef": runtime }
      }
    })
    expect(Object.keys(start.spec.env)).toEqual(["DIOPTRA_JOB_ID", "DIOPTRA_JOB_DOCUMENT_CHUNKS", "DIOPTRA_JOB_DOCUMENT_0"])
    expect(start.spec.env["DIOPTRA_JOB_ID"]).toBe("7")
    expect(successOf(documentFromEnv(start.spec.env))).toEqual({
      experiment: 1,
      entrypoint: 10,
      entrypointSnapshot: 3,
      queue: 100,
      values: job.values,
      artifactValues: job.artifactValues,
      swaps: { training_method: "method_a", optimizer: "adam" },
      taskGraph: {
        load: { load_dataset: { path: "$data_dir" } },
        train: { train_a: { epochs: "$epochs" }, dependencies: ["load"] },
        evaluate: { adam: { lr: "$lr" } },
        report: { report_a: {} }
      },
      timeoutSeconds: 7200
    })
  })

  it("prefers the entrypoint's image to the queue's, and leaves GPUs out when the queue sets none", () => {
    const job = jobFrom({ entrypoint: 11, queue: 101 })
    const start = successOf(toStartRequest(job, queue(101), otherEntrypoint, seed))
    expect(start.spec.extensions["dispatch/Image"]).toEqual({ ref: "example/other:1" })
    expect([start.spec.nodes, "gpusPerNode" in start.spec]).toEqual([1, false])
  })

  it("runs the snapshot the job was created with, not the latest", () => {
    const job = jobFrom({ entrypoint: 10, queue: 100, entrypointSnapshot: 2, values: { epochs: "3" } })
    const start = successOf(toStartRequest(job, queue(100), entrypoint, seed))
    expect([start.spec.command, start.spec.extensions["dispatch/Image"]]).toEqual([["python", "old.py"], { ref: "example/old:1" }])
  })

  it("refuses, naming every problem, a queue and entrypoint that are not the job's and a bad seed", () => {
    const refusal = failureOf(toStartRequest(jobFrom(), queue(101), otherEntrypoint, { time: -1, entropy: [] }))
    expect(tagsOf(refusal)).toEqual(["ResourceMismatch", "ResourceMismatch", "SnapshotNotFound", "InvalidUlidSeed"])
    expect(refusal.problems[0]?.message).toBe("job needs queue 100 but was given queue 101")
  })

  it("refuses a job whose swaps no longer fit its snapshot's graph", () => {
    const job = { ...jobFrom(), swaps: { training_method: "method_a" } }
    expect(tagsOf(failureOf(toStartRequest(job, queue(100), entrypoint, seed)))).toEqual(["MissingSwap"])
  })

  it("refuses when neither the entrypoint nor the queue names an image", () => {
    const job = { ...jobFrom(), queue: 101 }
    expect(failureOf(toStartRequest(job, queue(101), entrypoint, seed)).problems.map((p) => p.message)).toEqual([
      "entrypoint 10 names no image and queue 101 has no default image"
    ])
  })
})

describe("an entrypoint made by Dioptra's own client (no image, no command)", () => {
  const bare = decoded(Entrypoint, {
    id: 20,
    name: "stock",
    queues: [200, 201],
    snapshots: [{ snapshot: 1, parameters: [], artifactParameters: [], taskGraph: { s: { t: {} } } }]
  })
  const worker = decoded(Queue, {
    id: 200,
    name: "workers",
    backend: { config: queue(100).backend.config, runtime, image: "example/dioptra-worker:1", command: ["dioptra-worker", "run-job-document"] }
  })
  const imageOnly = decoded(Queue, { id: 201, name: "image-only", backend: { config: queue(100).backend.config, runtime, image: "example/dioptra-worker:1" } })
  const stock = catalogOf({ experiments: [{ id: 1, name: "robustness", entrypoints: [20] }], entrypoints: [bare], queues: [worker, imageOnly], artifacts: [] })

  it("runs the queue's backend's image and command, with the job document in the environment", () => {
    const job = newJob(successOf(validateJobRequest(1, { entrypoint: 20, queue: 200 }, stock)), 9, "2026-11-30T12:00:00.000Z")
    const start = successOf(toStartRequest(job, worker, bare, seed))
    expect(start.spec.command).toEqual(["dioptra-worker", "run-job-document"])
    expect(start.spec.extensions["dispatch/Image"]).toEqual({ ref: "example/dioptra-worker:1" })
    expect(successOf(documentFromEnv(start.spec.env))).toMatchObject({ entrypoint: 20, queue: 200, taskGraph: { s: { t: {} } } })
  })

  it("is refused at creation, naming both, when the backend has no command to run it with", () => {
    expect(failureOf(validateJobRequest(1, { entrypoint: 20, queue: 201 }, stock)).problems.map((p) => p.message)).toEqual([
      "entrypoint 20 names no command and queue 201's backend has no default command (backend.command)"
    ])
    const job = newJob(successOf(validateJobRequest(1, { entrypoint: 20, queue: 200 }, stock)), 9, "2026-11-30T12:00:00.000Z")
    expect(failureOf(toStartRequest({ ...job, queue: 201 }, imageOnly, bare, seed)).problems.map((p) => p._tag)).toEqual(["NoCommand"])
  })
})
