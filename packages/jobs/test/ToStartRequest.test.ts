import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { decodeConfig, decodeStartRequest, renderStart, type KubeObject } from "@dispatch/render"
import { describe, expect, it } from "vitest"
import { catalogOf, documentFromEnv, newJob, toStartRequest, ulid, validateJobRequest, type Job, type Queue } from "../src/index.ts"
import { catalog, entrypoint, experiment, failureOf, otherEntrypoint, queues, runtime, runtimeObject, successOf, tagsOf, validRequest } from "./Fixtures.ts"

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
      const manifests = successOf(renderStart(wire, successOf(decodeConfig(q.backend?.config)), runtimeObject))
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

describe("entrypoints and queues made by a stock Dioptra client", () => {
  const [gpu] = queues
  const stock: Queue = { id: 100, name: "gpu", ...(gpu?.backend === undefined ? {} : { backend: { ...gpu.backend, command: ["dioptra-worker", "run-document"] } }) }
  const { command: _, ...commandless } = entrypoint.snapshots[1] ?? { snapshot: 3, parameters: [], artifactParameters: [], taskGraph: {} }
  const stockEntrypoint = { ...entrypoint, snapshots: [{ ...commandless, artifactParameters: [] }] }
  const world = catalogOf({ experiments: [experiment], entrypoints: [stockEntrypoint], queues: [stock, { id: 103, name: "bare" }], artifacts: [] })
  const request = { ...validRequest, artifactValues: {}, queue: 100 }
  const stockEntrypointOn = (queues: ReadonlyArray<number>) => ({ ...stockEntrypoint, queues })

  it("an entrypoint without a command runs the queue backend's command", () => {
    const job = newJob(successOf(validateJobRequest(1, request, world)), 7, "2026-11-30T12:00:00.000Z")
    expect(successOf(toStartRequest(job, stock, stockEntrypoint, seed)).spec.command).toEqual(["dioptra-worker", "run-document"])
  })

  it("without a command anywhere the job is refused at creation (NoCommand)", () => {
    const noCommand = catalogOf({ experiments: [experiment], entrypoints: [stockEntrypoint], queues: [queue(100)], artifacts: [] })
    expect(tagsOf(failureOf(validateJobRequest(1, request, noCommand)))).toContain("NoCommand")
  })

  it("a queue without a backend takes the job, which cannot start until the queue has one (NoBackend)", () => {
    const bare = catalogOf({ experiments: [experiment], entrypoints: [stockEntrypointOn([103])], queues: [{ id: 103, name: "bare" }], artifacts: [] })
    const job = newJob(successOf(validateJobRequest(1, { ...request, queue: 103 }, bare)), 8, "2026-11-30T12:00:00.000Z")
    expect(tagsOf(failureOf(toStartRequest(job, { id: 103, name: "bare" }, stockEntrypointOn([103]), seed)))).toEqual(["NoBackend"])
  })
})
