// A job's dispatch life under faults, end to end over HTTP through KubeCluster: whatever the cluster did, a cancel,
// a delete or a refusal leaves nothing of the job on the cluster, and a passing fault never fails a job. Every check
// is on what the simulator stores.
import type { ApiRequest, KubeObject } from "@dispatch/sim"
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest"
import type { JobResponse } from "../src/wire/ApiSchemas.ts"
import {
  dispatchingService,
  eventually,
  jobWhen,
  namespace,
  probeNamePrefix,
  registerSimWorld,
  simWorld,
  submit,
  type DispatchingService,
  type SimWorld
} from "./ClusterWorld.ts"
import type { Client, World } from "./Fixtures.ts"

const jobIdOf = (job: KubeObject) =>
  ((job["spec"] as { trainer?: { env?: ReadonlyArray<{ name: string; value?: string }> } }).trainer?.env ?? []).find((e) => e.name === "DIOPTRA_JOB_ID")?.value ?? ""

/** The TrainJob names the simulator holds for a service job (found by its DIOPTRA_JOB_ID), probes left out. */
const trainJobsOf = (world: SimWorld, id: number) =>
  world.sim.system
    .list("trainjobs", namespace)
    .filter((t) => !String(t.metadata?.["name"]).startsWith(probeNamePrefix) && jobIdOf(t) === String(id))
    .map((t) => String(t.metadata?.["name"]))

/** The name of the TrainJob the service sent a create of for a job (whether it landed or not). */
const createdName = (world: SimWorld, id: number): string | undefined => {
  const create = world.calls.find((c) => c.request.verb === "create" && c.request.resource === "trainjobs" && jobIdOf(c.request.body as KubeObject) === String(id))
  return (create?.request.body as KubeObject | undefined)?.metadata?.["name"] as string | undefined
}

/** Every TrainJob and runtime copy the simulator holds of a job, by the name its TrainJob was given. */
const leftOf = (world: SimWorld, name: string) => [
  ...(world.sim.system.get("trainjobs", namespace, name) === undefined ? [] : [`TrainJob ${name}`]),
  ...(world.sim.system.get("trainingruntimes", namespace, name) === undefined ? [] : [`TrainingRuntime ${name}`])
]

const historyOf = async (call: Client, id: number): Promise<ReadonlyArray<string>> =>
  (await call("GET", `/jobs/${id}/status`)).body.history.map((h: { status: string }) => h.status)

const readJob = (call: Client, id: number): Promise<JobResponse> => call.typed((c) => c.jobs.read({ params: { id } }))

/** Looks at every call before the simulator serves it (a test arms it to change the faults at a given call). */
let watch: (request: ApiRequest) => void = () => undefined

describe("a job's dispatch life under faults", () => {
  let world: SimWorld | undefined
  let service: DispatchingService | undefined
  let registered: World | undefined
  beforeAll(async () => {
    // Runs long enough that a job is still running when the test acts on it.
    world = await simWorld({ controllers: { trainer: { runTimeMs: 600_000 } } }, (request) => {
      watch(request)
      return undefined
    })
    service = await dispatchingService(world)
    registered = await registerSimWorld(service.alice, "life")
    await eventually(async () => (await service?.alice("GET", `/queues/${registered?.queue}`))?.body.gate?.state, (s) => s === "open")
  })
  afterAll(async () => {
    world?.sim.setFaults([])
    await service?.server.close()
    await world?.close()
  })
  afterEach(() => {
    world?.sim.setFaults([])
    watch = () => undefined
  })
  const the = () => {
    if (world === undefined || service === undefined || registered === undefined) throw new Error("not started")
    return { world, alice: service.alice, w: registered }
  }

  /** Submits a job under `faults`, waits until its first attempt left a TrainJob and settled, then clears them. */
  const faulted = async (faults: Parameters<SimWorld["sim"]["setFaults"]>[0], settled: (job: JobResponse) => boolean) => {
    const { world, alice, w } = the()
    world.sim.setFaults(faults)
    try {
      const job = await submit(alice, w)
      const name = await eventually(async () => createdName(world, job.id), (n) => n !== undefined)
      const now = await jobWhen(alice, job.id, settled)
      return { job: now, name: name ?? "" }
    } catch (e) {
      world.sim.setFaults([])
      throw e
    }
  }

  const cancelFrees = async (job: JobResponse, name: string, clearFaults = true) => {
    const { world, alice } = the()
    const cancelled = await alice("POST", `/jobs/${job.id}/cancel`)
    expect(cancelled.status).toBe(200)
    expect(cancelled.body).toMatchObject({ status: "failed" })
    if (clearFaults) world.sim.setFaults([])
    await eventually(async () => leftOf(world, name), (left) => left.length === 0)
    const done = await jobWhen(alice, job.id, (j) => j.dispatch.state === "done")
    expect(done.status).toBe("failed")
    expect(leftOf(world, name)).toEqual([])
    expect((await historyOf(alice, job.id)).at(-1)).toBe("failed")
  }

  test("the copy's owner patch answered 503 again and again: the job waits queued with its TrainJob, and cancel removes the TrainJob and its copy", async () => {
    const { job, name } = await faulted([{ verb: "patch", resource: "trainingruntimes", action: { type: "status", code: 503, message: "owner patch unavailable" } }], (j) => j.dispatch.attempts >= 1 && j.dispatch.state === "pending")
    expect(job.status).toBe("queued")
    expect(job.dispatch).toMatchObject({ attempts: expect.any(Number), error: { error: expect.any(String) }, nextRetryAt: expect.any(String) })
    await cancelFrees(job, name)
  })

  test("a TrainJob create that landed unanswered, then cancel: the stop waits out the call bound and removes it", async () => {
    const { job, name } = await faulted(
      [{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "drop" } }],
      (j) => j.dispatch.error?.error === "ErrOutcomeUnknown" && j.dispatch.state !== "starting" && j.dispatch.state !== "claimed"
    )
    await cancelFrees(job, name)
    // Before the cancel it waited out the create's bound, saying until when.
    expect(job.dispatch).toMatchObject({ state: "unknown", nextRetryAt: expect.any(String) })
  })

  test("Open's patch landed unanswered and its read-back got 503: the TrainJob runs while the job waits, and cancel stops it", async () => {
    const { world } = the()
    // Open's patch (the first patch of a TrainJob) is applied and never answered; from then on every read of a
    // TrainJob gets 503, so Open cannot tell it ran.
    watch = (request) => {
      if (request.verb !== "patch" || request.resource !== "trainjobs" || (request.name ?? "").startsWith(probeNamePrefix)) return
      watch = () => undefined
      world.sim.setFaults([
        { verb: "patch", resource: "trainjobs", nth: 1, action: { type: "drop" } },
        { verb: "get", resource: "trainjobs", action: { type: "status", code: 503, message: "read-back unavailable" } }
      ])
    }
    const { job, name } = await faulted([], (j) => j.dispatch.attempts >= 1 && (j.dispatch.state === "pending" || j.dispatch.state === "unknown"))
    expect(job.status).toBe("queued")
    // The TrainJob was let run (its suspend lifted) though the job never learnt it.
    await eventually(async () => (world.sim.system.get("trainjobs", namespace, name)?.["spec"] as { suspend?: boolean } | undefined)?.suspend, (s) => s === false)
    await cancelFrees(job, name)
  })

  test("Open refused (422): the job fails with the reason, and its suspended TrainJob and copy are removed", async () => {
    const { world, alice } = the()
    const { job, name } = await faulted([{ verb: "patch", resource: "trainjobs", action: { type: "status", code: 422, message: "suspend is immutable here" } }], (j) => j.status === "failed")
    world.sim.setFaults([])
    expect(job.dispatch.reason).toMatch(/suspend is immutable here/)
    await eventually(async () => leftOf(world, name), (left) => left.length === 0)
    expect((await jobWhen(alice, job.id, (j) => j.dispatch.state === "done")).status).toBe("failed")
    expect(await historyOf(alice, job.id)).toEqual(["queued", "failed"])
  })

  test("a copy whose create landed unanswered, then a TrainJob create refused (422): the job fails and the copy is removed, not left without an owner", async () => {
    const { world, alice, w } = the()
    world.sim.setFaults([
      { verb: "create", resource: "trainingruntimes", nth: 1, action: { type: "drop" } },
      { verb: "create", resource: "trainjobs", action: { type: "status", code: 422, message: "spec.trainer is invalid" } }
    ])
    try {
      const job = await submit(alice, w)
      const failed = await jobWhen(alice, job.id, (j) => j.status === "failed" && j.dispatch.state === "done")
      expect(failed.dispatch.reason).toMatch(/spec\.trainer is invalid/)
      const name = createdName(world, job.id) ?? ""
      expect(name).not.toBe("")
      expect(leftOf(world, name)).toEqual([])
      expect(await historyOf(alice, job.id)).toEqual(["queued", "failed"])
    } finally {
      world.sim.setFaults([])
    }
  })

  test("delete of a running job stops it; the job is gone from the API at once and its row stays until the stop is done", async () => {
    const { world, alice, w } = the()
    const job = await submit(alice, w)
    const running = await jobWhen(alice, job.id, (j) => j.status === "started")
    const name = running.dispatch.trainJob?.name ?? ""
    world.sim.setFaults([{ verb: "delete", resource: "trainjobs", action: { type: "status", code: 503, message: "delete unavailable" } }])
    try {
      expect((await alice("DELETE", `/jobs/${job.id}`)).status).toBe(200)
      expect((await alice("GET", `/jobs/${job.id}`)).status).toBe(404)
      await eventually(async () => world.calls.filter((c) => c.request.verb === "delete" && c.request.resource === "trainjobs" && c.request.name === name).length, (n) => n >= 2)
      expect(leftOf(world, name)).toContain(`TrainJob ${name}`)
    } finally {
      world.sim.setFaults([])
    }
    await eventually(async () => leftOf(world, name), (left) => left.length === 0)
  })

  test("one passing fault on the copy's owner patch, or on the read-back, never fails the job", async () => {
    const { world, alice, w } = the()
    for (const fault of [
      { verb: "patch" as const, resource: "trainingruntimes", nth: 1, action: { type: "status" as const, code: 503, message: "owner patch unavailable" } },
      { verb: "get" as const, resource: "trainjobs", nth: 1, action: { type: "status" as const, code: 503, message: "read-back unavailable" } },
      { verb: "get" as const, resource: "trainjobs", nth: 1, action: { type: "drop" as const } }
    ]) {
      world.sim.setFaults([fault])
      try {
        const job = await submit(alice, w)
        const started = await jobWhen(alice, job.id, (j) => j.status !== "queued")
        expect(started.status, JSON.stringify(started.dispatch)).toBe("started")
        expect(await historyOf(alice, job.id)).toEqual(["queued", "started"])
        expect(trainJobsOf(world, job.id)).toHaveLength(1)
      } finally {
        world.sim.setFaults([])
      }
    }
  })
})
