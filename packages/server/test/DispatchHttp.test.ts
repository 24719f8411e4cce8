import type { KubeObject } from "@dispatch/sim"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import {
  dispatchingService,
  eventually,
  jobWhen,
  registerSimWorld,
  simKueue,
  simQueueBody,
  simWorld,
  submit,
  trainJobCreates,
  trainJobName,
  type DispatchingService,
  type SimWorld
} from "./ClusterWorld.ts"
import { client, tokens, type Client } from "./Fixtures.ts"

// Jobs whose run the test scripts, by service job id (read from the TrainJob's DIOPTRA_JOB_ID).
const scripted = new Map<string, { readonly result: "Complete" | "Failed"; readonly afterMs: number }>()
const jobIdOf = (job: KubeObject) =>
  ((job["spec"] as { trainer?: { env?: ReadonlyArray<{ name: string; value?: string }> } }).trainer?.env ?? []).find((e) => e.name === "DIOPTRA_JOB_ID")?.value ?? ""

const queueGate = (call: Client, id: number) => eventually(async () => (await call("GET", `/queues/${id}`)).body, (q) => q.gate?.state !== "unproven" && q.gate?.state !== "proving")

const historyOf = async (call: Client, id: number) =>
  (await call("GET", `/jobs/${id}/status`)).body.history.map((h: { status: string; reason?: string }) => (h.reason === undefined ? h.status : `${h.status} (${h.reason})`))

describe("jobs on a simulated cluster, over HTTP through KubeCluster", () => {
  let world: SimWorld | undefined
  let service: DispatchingService | undefined
  beforeAll(async () => {
    world = await simWorld({ controllers: { trainer: { outcomes: (job) => scripted.get(jobIdOf(job)) }, kueue: simKueue } })
    service = await dispatchingService(world)
  })
  afterAll(async () => {
    await service?.server.close()
    await world?.close()
  })
  const the = () => {
    if (world === undefined || service === undefined) throw new Error("not started")
    return { world, ...service }
  }

  test("happy path: the queue's gates are proven, the job goes queued -> started -> finished, and its workload reports back", async () => {
    const { alice, world } = the()
    const w = await registerSimWorld(alice, "happy")
    expect((await queueGate(alice, w.queue)).gate).toMatchObject({ state: "open", checkedOn: expect.any(String) })
    const job = await submit(alice, w)
    const finished = await jobWhen(alice, job.id, (j) => j.status === "finished")
    expect(finished.dispatch).toMatchObject({ state: "done", trainJob: { namespace: "ml-team", uid: expect.any(String) }, attempts: 1 })
    expect(await historyOf(alice, job.id)).toEqual(["queued", "started", "finished (AllJobsCompleted)"])
    await world.workload.settled()
    const logs = (await alice("GET", `/jobs/${job.id}/log`)).body.data.map((l: { message: string }) => l.message)
    expect(logs).toEqual(["workload started", "loaded the dataset", "training"])
    const metrics = (await alice("GET", `/jobs/${job.id}/metrics`)).body
    expect(metrics.map((m: { name: string; step: number; value: number }) => [m.name, m.step, m.value])).toEqual([["accuracy", 1, 0.62], ["loss", 1, 1.1]])
    expect(trainJobCreates(world.calls).get(trainJobName(finished))).toBe(1)
    // The TrainJob carries the report-back contract; the token it holds is good for this job only.
    const trainJob = world.sim.system.get("trainjobs", "ml-team", trainJobName(finished)) as KubeObject
    const env = new Map(((trainJob["spec"] as any).trainer.env as Array<{ name: string; value: string }>).map((e) => [e.name, e.value]))
    expect(env.get("DIOPTRA_SERVICE_URL")).toBe(`${the().server.url}/api/v1`)
    expect(env.get("DIOPTRA_JOB_ID")).toBe(String(job.id))
    const token = env.get("DIOPTRA_REPORT_TOKEN") ?? ""
    const other = await submit(alice, w)
    const asWorkload = async (path: string, body: unknown) =>
      (await fetch(`${the().server.url}/api/v1${path}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) })).status
    expect(await asWorkload(`/jobs/${job.id}/metrics`, { name: "loss", value: 0.5, step: 2 })).toBe(200)
    expect(await asWorkload(`/jobs/${other.id}/metrics`, { name: "loss", value: 0.5, step: 2 })).toBe(403)
    expect(await asWorkload(`/jobs/${job.id}/rerun`, {})).toBe(403)
    expect(await asWorkload(`/jobs/${job.id}/log`, { data: [{ severity: "INFO", loggerName: "w", message: "x" }] })).toBe(200)
    expect((await fetch(`${the().server.url}/api/v1/jobs/${job.id}`, { headers: { authorization: `Bearer ${token.slice(0, -2)}00` } })).status).toBe(401)
    await jobWhen(alice, other.id, (j) => j.status === "finished")
  })

  test("Kueue mode: Start waits for the Workload, Open lifts dispatch's gate, hold and release move the admission check", async () => {
    const { alice, world } = the()
    const w = await registerSimWorld(alice, "kueue", simQueueBody("q-kueue", "kueue"))
    expect((await queueGate(alice, w.queue)).gate).toMatchObject({ state: "open" })
    const job = await submit(alice, w)
    scripted.set(String(job.id), { result: "Complete", afterMs: 600_000 })
    const running = await jobWhen(alice, job.id, (j) => j.status === "started")
    const workload = () =>
      world.sim.system.list("workloads", "ml-team").find((o) => ((o.metadata?.["ownerReferences"] as Array<{ name: string }> | undefined) ?? []).some((r) => r.name === trainJobName(running)))
    expect(workload()?.metadata?.["annotations"]).not.toHaveProperty(["kueue.x-k8s.io/admission-gated-by"])
    const check = () => ((workload()?.["status"] as { admissionChecks?: Array<{ name: string; state: string }> } | undefined)?.admissionChecks ?? []).find((c) => c.name === "dispatch-check")?.state
    expect((await alice("POST", `/jobs/${job.id}/hold`)).body).toMatchObject({ status: "deferred", dispatch: { state: "held" } })
    expect(check()).toBe("Pending")
    scripted.set(String(job.id), { result: "Complete", afterMs: 3000 })
    expect((await alice("POST", `/jobs/${job.id}/release`)).body).toMatchObject({ status: "started", dispatch: { state: "opened" } })
    expect(check()).toBe("Ready")
    await jobWhen(alice, job.id, (j) => j.status === "finished")
    expect(trainJobCreates(world.calls).get(trainJobName(running))).toBe(1)
  })

  test("a run longer than the job's timeout ends failed with DeadlineExceeded", async () => {
    const { alice } = the()
    const w = await registerSimWorld(alice, "deadline")
    await queueGate(alice, w.queue)
    const job = await submit(alice, w, { timeout: "2" })
    scripted.set(String(job.id), { result: "Complete", afterMs: 600_000 })
    const failed = await jobWhen(alice, job.id, (j) => j.status === "failed")
    expect(failed.dispatch).toMatchObject({ state: "done", reason: expect.stringMatching(/^DeadlineExceeded: /) })
    expect((await historyOf(alice, job.id)).at(-1)).toMatch(/^failed \(DeadlineExceeded: /)
  })

  test("cancel during started stops the TrainJob and fails the job with reason cancelled", async () => {
    const { alice, world } = the()
    const w = await registerSimWorld(alice, "cancel")
    await queueGate(alice, w.queue)
    const job = await submit(alice, w)
    scripted.set(String(job.id), { result: "Complete", afterMs: 600_000 })
    const running = await jobWhen(alice, job.id, (j) => j.status === "started")
    const cancelled = await alice("POST", `/jobs/${job.id}/cancel`)
    expect(cancelled.status).toBe(200)
    expect(cancelled.body).toMatchObject({ status: "failed", dispatch: { reason: "cancelled" } })
    const done = await jobWhen(alice, job.id, (j) => j.dispatch.state === "done")
    expect(done.dispatch.reason).toBe("cancelled")
    await eventually(async () => world.sim.system.list("trainjobs", "ml-team").filter((t) => t.metadata?.["name"] === trainJobName(running)).length, (n) => n === 0)
    expect(await historyOf(alice, job.id)).toEqual(["queued", "started", "failed (cancelled)"])
    expect((await alice("POST", `/jobs/${job.id}/cancel`)).body).toMatchObject({ error: "JobNotControllable" })
    // Deleting a job that runs stops its TrainJob too.
    const deleted = await submit(alice, w)
    scripted.set(String(deleted.id), { result: "Complete", afterMs: 600_000 })
    const deletedRunning = await jobWhen(alice, deleted.id, (j) => j.status === "started")
    expect((await alice("DELETE", `/jobs/${deleted.id}`)).status).toBe(200)
    await eventually(async () => world.sim.system.list("trainjobs", "ml-team").filter((t) => t.metadata?.["name"] === trainJobName(deletedRunning)).length, (n) => n === 0)
  })

  test("hold and release: deferred while held on the cluster, then started again, and it finishes", async () => {
    const { alice, world } = the()
    const w = await registerSimWorld(alice, "hold")
    await queueGate(alice, w.queue)
    const job = await submit(alice, w)
    scripted.set(String(job.id), { result: "Complete", afterMs: 600_000 })
    const running = await jobWhen(alice, job.id, (j) => j.status === "started")
    const held = await alice("POST", `/jobs/${job.id}/hold`)
    expect(held.body).toMatchObject({ status: "deferred", dispatch: { state: "held" } })
    const trainJob = () => world.sim.system.get("trainjobs", "ml-team", trainJobName(running)) as KubeObject
    expect((trainJob()["spec"] as { suspend?: boolean }).suspend).toBe(true)
    scripted.set(String(job.id), { result: "Complete", afterMs: 3000 })
    const released = await alice("POST", `/jobs/${job.id}/release`)
    expect(released.body).toMatchObject({ status: "started", dispatch: { state: "opened" } })
    expect((trainJob()["spec"] as { suspend?: boolean }).suspend).toBe(false)
    await jobWhen(alice, job.id, (j) => j.status === "finished")
    expect(await historyOf(alice, job.id)).toEqual(["queued", "started", "deferred (held)", "started (released)", "finished (AllJobsCompleted)"])
    expect((await alice("POST", `/jobs/${job.id}/release`)).status).toBe(409)
  })

  test("re-run makes a new job with the same values, swaps, timeout and snapshot, which runs on its own TrainJob", async () => {
    const { alice, world } = the()
    const w = await registerSimWorld(alice, "rerun")
    await queueGate(alice, w.queue)
    const job = await submit(alice, w, { timeout: "3h", swaps: { training_method: "method_b" }, values: { data_dir: "/d2", epochs: "9" } })
    const first = await jobWhen(alice, job.id, (j) => j.status === "finished")
    const bob = client(the().server.url, tokens.bob)
    const reader = client(the().server.url, tokens.reader)
    for (const action of ["rerun", "cancel", "hold", "release"]) {
      expect((await bob("POST", `/jobs/${job.id}/${action}`)).status).toBe(404)
      expect((await reader("POST", `/jobs/${job.id}/${action}`)).status).toBe(403)
    }
    const again = await alice("POST", `/jobs/${job.id}/rerun`)
    expect(again.status).toBe(200)
    const { id, createdOn, lastModifiedOn, status, dispatch, snapshot, snapshotCreatedOn, ...same } = again.body
    const { id: _i, createdOn: _c, lastModifiedOn: _l, status: _s, dispatch: _d, snapshot: _n, snapshotCreatedOn: _t, ...original } = first
    expect(same).toEqual(original)
    // The re-run is a job of its own: its own one snapshot.
    expect([snapshot, snapshotCreatedOn]).toEqual([id, createdOn])
    expect(dispatch).toMatchObject({ state: "pending", rerunOf: job.id, attempts: 0 })
    const second = await jobWhen(alice, id, (j) => j.status === "finished")
    expect(trainJobName(second)).not.toBe(trainJobName(first))
    expect(trainJobCreates(world.calls).get(trainJobName(second))).toBe(1)
  })

  test("a dropped answer to the TrainJob create: the job is found, opened and runs exactly once", async () => {
    const { alice, world } = the()
    const w = await registerSimWorld(alice, "dropped")
    await queueGate(alice, w.queue)
    world.sim.setFaults([{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "drop" } }])
    try {
      const job = await submit(alice, w)
      const finished = await jobWhen(alice, job.id, (j) => j.status === "finished")
      expect(finished.dispatch.attempts).toBe(2)
      expect(finished.dispatch.error).toBeUndefined()
      expect(trainJobCreates(world.calls).get(trainJobName(finished))).toBe(1)
      expect(await historyOf(alice, job.id)).toEqual(["queued", "started", "finished (AllJobsCompleted)"])
    } finally {
      world.sim.setFaults([])
    }
  })

  test("a run that ends before Open's answer arrives counts as opened, and finishes", async () => {
    const { alice, world } = the()
    const w = await registerSimWorld(alice, "quick")
    await queueGate(alice, w.queue)
    // The patch that opens the job is applied at once and answered 500 ms later; the run lasts 50 ms.
    world.sim.setFaults([{ verb: "patch", resource: "trainjobs", action: { type: "delay", ms: 500 } }])
    try {
      const job = await submit(alice, w)
      scripted.set(String(job.id), { result: "Complete", afterMs: 500 })
      const finished = await jobWhen(alice, job.id, (j) => j.status === "finished")
      expect(finished.dispatch).toMatchObject({ state: "done", attempts: 1 })
      expect(await historyOf(alice, job.id)).toEqual(["queued", "started", "finished (AllJobsCompleted)"])
    } finally {
      world.sim.setFaults([])
    }
  })

  test("status sync rides out a cluster that answers no list: the job keeps its status, then catches up", async () => {
    const { alice, world } = the()
    const w = await registerSimWorld(alice, "blind")
    await queueGate(alice, w.queue)
    const job = await submit(alice, w)
    scripted.set(String(job.id), { result: "Complete", afterMs: 600_000 })
    await jobWhen(alice, job.id, (j) => j.status === "started")
    world.sim.setFaults([{ verb: "list", resource: "trainjobs", action: { type: "status", code: 503, message: "list unavailable" } }])
    try {
      scripted.set(String(job.id), { result: "Failed", afterMs: 0 })
      const lists = () => world.calls.filter((c) => c.request.verb === "list" && c.request.resource === "trainjobs" && c.outcome.kind === "answered" && c.outcome.response.code === 503).length
      const before = lists()
      await eventually(async () => lists(), (n) => n >= before + 3)
      expect((await alice("GET", `/jobs/${job.id}`)).body).toMatchObject({ status: "started", dispatch: { state: "opened" } })
    } finally {
      world.sim.setFaults([])
    }
    const failed = await jobWhen(alice, job.id, (j) => j.status === "failed")
    expect(failed.dispatch.reason).toMatch(/^FailedJobs: /)
  })

  test("a transient refusal (503) of the TrainJob create is retried with backoff; a refusal as invalid (422) fails the job with its reasons", async () => {
    const { alice, world } = the()
    const w = await registerSimWorld(alice, "faults")
    await queueGate(alice, w.queue)
    world.sim.setFaults([{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "status", code: 503, message: "try later" } }])
    try {
      const retried = await submit(alice, w)
      const finished = await jobWhen(alice, retried.id, (j) => j.status === "finished")
      expect(finished.dispatch.attempts).toBe(2)
      expect(trainJobCreates(world.calls).get(trainJobName(finished))).toBe(1)
    } finally {
      world.sim.setFaults([])
    }
    world.sim.setFaults([{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "status", code: 422, message: "spec.trainer is invalid" } }])
    try {
      const refused = await submit(alice, w)
      // Its copy may have landed before the refusal: the job is stopping until Stop has left nothing of it.
      const failed = await jobWhen(alice, refused.id, (j) => j.status === "failed" && j.dispatch.state === "done")
      expect(failed.dispatch).toMatchObject({ state: "done", attempts: 1, reason: expect.stringMatching(/^ErrRejected: .*spec\.trainer is invalid/) })
      expect(failed.dispatch.trainJob).toBeUndefined()
      expect(failed.dispatch.error).toMatchObject({ error: "ErrRejected", reasons: [expect.stringContaining("spec.trainer is invalid")] })
      expect(await historyOf(alice, refused.id)).toEqual([`queued`, `failed (${failed.dispatch.reason})`])
    } finally {
      world.sim.setFaults([])
    }
  })

  test("a forbidden TrainJob create (ErrReadOnly) sends the queue back to its Factory: read-only, and the job waits queued", async () => {
    const { alice, world } = the()
    const w = await registerSimWorld(alice, "lost-write")
    await queueGate(alice, w.queue)
    world.sim.setFaults([{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "status", code: 403, message: "no more writes" } }])
    try {
      const job = await submit(alice, w)
      const waiting = await jobWhen(alice, job.id, (j) => j.dispatch.attempts === 1 && j.dispatch.state === "pending")
      expect(waiting).toMatchObject({ status: "queued", dispatch: { reason: expect.stringMatching(/^ErrReadOnly: .*no more writes/), error: { error: "ErrReadOnly" } } })
      expect((await alice("GET", `/queues/${w.queue}`)).body.gate).toMatchObject({ state: "read-only", reason: expect.stringContaining("no more writes") })
      // Its runtime copy may have landed before the create was forbidden: the job stops, once the queue may write again.
      expect((await alice("POST", `/jobs/${job.id}/cancel`)).body).toMatchObject({ status: "failed", dispatch: { state: "stopping" } })
    } finally {
      world.sim.setFaults([])
    }
  })

  test("a read-only backend: its gate says why, a job on it stays queued with that reason, and cancel while queued fails it", async () => {
    const { alice, world } = the()
    world.sim.setFaults([{ verb: "create", action: { type: "status", code: 403, message: "creates are forbidden here" } }])
    let w
    try {
      w = await registerSimWorld(alice, "readonly", simQueueBody("q-readonly"))
      const queue = await queueGate(alice, w.queue)
      expect(queue.gate).toMatchObject({ state: "read-only", reason: expect.stringContaining("forbidden") })
    } finally {
      world.sim.setFaults([])
    }
    const job = await submit(alice, w)
    const waiting = await jobWhen(alice, job.id, (j) => j.dispatch.reason !== undefined)
    expect(waiting).toMatchObject({ status: "queued", dispatch: { state: "pending", attempts: 0, reason: expect.stringMatching(/^queue \d+ is not open \(read-only\): .*forbidden/) } })
    const cancelled = await alice("POST", `/jobs/${job.id}/cancel`)
    expect(cancelled.body).toMatchObject({ status: "failed", dispatch: { state: "done", reason: "cancelled" } })
    expect(await historyOf(alice, job.id)).toEqual(["queued", "failed (cancelled)"])
  })
})
