// Two service processes on one PostgreSQL, racing on the same jobs through faults: an unanswered create is
// remembered in the database, so no replica (nor a restart) creates again while it may still land; every job ends
// where it should, and a cancelled one leaves nothing on the cluster. Checked on what the simulator stores.
import type { ApiRequest, KubeObject } from "@dispatch/sim"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { dispatchingService, eventually, jobWhen, namespace, probeNamePrefix, registerSimWorld, simWorld, submit, trainJobCreates, type Intercept, type SimWorld } from "./ClusterWorld.ts"
import { testPostgres, type TestPostgres } from "./TestPostgres.ts"

const jobIdOf = (body: unknown) =>
  (((body as KubeObject)["spec"] as { trainer?: { env?: ReadonlyArray<{ name: string; value?: string }> } } | undefined)?.trainer?.env ?? []).find((e) => e.name === "DIOPTRA_JOB_ID")?.value ?? ""

const isTrainJobCreate = (request: ApiRequest) =>
  request.verb === "create" && request.resource === "trainjobs" && !String((request.body as KubeObject | undefined)?.metadata?.["name"] ?? "").startsWith(probeNamePrefix)

describe("two service processes on one PostgreSQL, racing through faults", { timeout: 300_000 }, () => {
  let postgres: TestPostgres | undefined
  let world: SimWorld | undefined
  /** Decides a call before the simulator sees it (undefined: serve it). */
  let intercept: Intercept = () => undefined
  /** The service job ids whose run lasts ten minutes instead of two seconds. */
  const long = new Set<string>()
  /** Each TrainJob create sent, with when (ms since the epoch). */
  const creates: Array<{ readonly request: ApiRequest; readonly atMs: number }> = []
  beforeAll(async () => {
    postgres = await testPostgres()
    world = await simWorld({ controllers: { trainer: { runTimeMs: 2000, outcomes: (job) => (long.has(jobIdOf(job)) ? { result: "Complete", afterMs: 600_000 } : undefined) } } }, (request) => {
      if (isTrainJobCreate(request)) creates.push({ request, atMs: Date.now() })
      return intercept(request)
    })
  })
  afterAll(async () => {
    await world?.close()
    await postgres?.release()
  })

  test("a create left unanswered by one replica is not sent again by the other until it can no longer land", async () => {
    if (postgres === undefined || world === undefined) throw new Error("not started")
    const sim = world.sim
    const options = { databaseUrl: postgres.url }
    const a = await dispatchingService(world, { ...options, dispatch: { instance: "replica-a" } })
    let b: Awaited<ReturnType<typeof dispatchingService>> | undefined
    try {
      const w = await registerSimWorld(a.alice, "unanswered")
      await eventually(async () => (await a.alice("GET", `/queues/${w.queue}`)).body.gate.state, (s) => s === "open")
      // The first create of the job is neither applied nor answered: it is still on its way.
      let late: ApiRequest | undefined
      intercept = (request) => {
        if (!isTrainJobCreate(request) || late !== undefined) return undefined
        late = request
        return { kind: "unanswered" }
      }
      const job = await submit(a.alice, w)
      const waiting = await jobWhen(a.alice, job.id, (j) => j.dispatch.error?.error === "ErrOutcomeUnknown" && j.dispatch.state !== "starting")
      // A is killed; B, another process on the same database, takes over. Meanwhile the create lands.
      await a.server.close()
      b = await dispatchingService(world, { ...options, dispatch: { instance: "replica-b" } })
      if (late === undefined) throw new Error("no create was held back")
      const landed = sim.handle(late)
      expect(landed).toMatchObject({ kind: "answered", response: { code: 201 } })
      const finished = await jobWhen(b.alice, job.id, (j) => j.status === "finished", 60_000)
      const name = finished.dispatch.trainJob?.name ?? ""
      const sentAgain = creates.filter((c) => jobIdOf(c.request.body) === String(job.id) && c.request !== late)
      // The held-back create went unanswered once the call timed out (5 s) and may land for the call bound after
      // that (5 s): no create may be sent before both have passed, nor before the bound the job showed.
      const heldAt = creates.find((c) => c.request === late)?.atMs ?? 0
      for (const c of sentAgain) expect(c.atMs - heldAt).toBeGreaterThanOrEqual(10_000)
      expect(waiting.dispatch).toMatchObject({ state: "unknown", nextRetryAt: expect.any(String) })
      for (const c of sentAgain) expect(c.atMs).toBeGreaterThanOrEqual(Date.parse(waiting.dispatch.nextRetryAt ?? ""))
      expect(finished.dispatch.attempts).toBeGreaterThanOrEqual(2)
      expect(sim.system.list("trainjobs", namespace).filter((t) => jobIdOf(t) === String(job.id)).map((t) => t.metadata?.["name"])).toEqual([name])
    } finally {
      intercept = () => undefined
      await a.server.close()
      await b?.server.close()
    }
  })

  test("a stop that cannot finish while the cluster refuses deletes goes on in the next process until nothing is left", async () => {
    if (postgres === undefined || world === undefined) throw new Error("not started")
    const sim = world.sim
    const a = await dispatchingService(world, { databaseUrl: postgres.url })
    let b: Awaited<ReturnType<typeof dispatchingService>> | undefined
    try {
      const w = await registerSimWorld(a.alice, "stop-restart")
      const job = await submit(a.alice, w)
      long.add(String(job.id))
      const opened = await jobWhen(a.alice, job.id, (j) => j.dispatch.state === "opened")
      const name = opened.dispatch.trainJob?.name ?? ""
      sim.setFaults([{ verb: "delete", action: { type: "status", code: 503, message: "deletes unavailable" } }])
      expect((await a.alice("POST", `/jobs/${job.id}/cancel`)).body).toMatchObject({ status: "failed", dispatch: { state: "stopping" } })
      await eventually(async () => world?.calls.filter((c) => c.request.verb === "delete" && c.request.name === name).length ?? 0, (n) => n >= 1)
      const stopping = (await a.alice("GET", `/jobs/${job.id}`)).body
      expect(stopping.dispatch).toMatchObject({ state: "stopping", nextRetryAt: expect.any(String) })
      await a.server.close()
      sim.setFaults([])
      expect(sim.system.get("trainjobs", namespace, name)).toBeDefined()
      b = await dispatchingService(world, { databaseUrl: postgres.url })
      await eventually(async () => [sim.system.get("trainjobs", namespace, name), sim.system.get("trainingruntimes", namespace, name)].filter((o) => o !== undefined).length, (n) => n === 0)
      expect((await jobWhen(b.alice, job.id, (j) => j.dispatch.state === "done")).status).toBe("failed")
    } finally {
      sim.setFaults([])
      await a.server.close()
      await b?.server.close()
    }
  })

  test("both replicas dispatch, under dropped and refused creates, while jobs are cancelled: each finishes or leaves nothing, no TrainJob is made twice", async () => {
    if (postgres === undefined || world === undefined) throw new Error("not started")
    const sim = world.sim
    const options = { databaseUrl: postgres.url, dispatch: { concurrency: 4 } }
    const a = await dispatchingService(world, options)
    const b = await dispatchingService(world, options)
    try {
      const w = await registerSimWorld(a.alice, "race")
      await eventually(async () => (await a.alice("GET", `/queues/${w.queue}`)).body.gate.state, (s) => s === "open")
      // Every third create is applied and never answered, every fifth answered 503 and not applied.
      let n = 0
      intercept = (request) => {
        if (!isTrainJobCreate(request)) return undefined
        n++
        if (n % 5 === 0) return { kind: "answered", response: { code: 503, body: { kind: "Status", apiVersion: "v1", status: "Failure", reason: "ServiceUnavailable", code: 503, message: "busy" } } }
        if (n % 3 === 0) {
          // Applied, and the answer lost; a create that applied nothing (409: it is there already) is answered.
          const outcome = sim.handle(request)
          return outcome.kind === "answered" && outcome.response.code === 201 ? { kind: "unanswered" } : outcome
        }
        return undefined
      }
      const ids = (await Promise.all(Array.from({ length: 12 }, (_, i) => submit(i % 2 === 0 ? a.alice : b.alice, w)))).map((j) => j.id)
      const toCancel = ids.filter((_, i) => i % 4 === 1)
      await new Promise((resolve) => setTimeout(resolve, 300))
      // The cancels go out together. On a machine slow enough, a job may have finished before its cancel
      // arrives: the cancel is then refused (409) and the job is held to what a finished job must be.
      const answers = await Promise.all(toCancel.map(async (id) => ({ id, status: (await (id % 2 === 0 ? b : a).alice("POST", `/jobs/${id}/cancel`)).status })))
      for (const { status } of answers) expect([200, 409]).toContain(status)
      const cancelled = answers.filter((x) => x.status === 200).map((x) => x.id)
      for (const { id } of answers.filter((x) => x.status === 409)) expect((await a.alice("GET", `/jobs/${id}`)).body.status).toBe("finished")
      for (const id of ids) {
        const ended = await jobWhen(a.alice, id, (j) => j.dispatch.state === "done", 120_000)
        expect(ended.status, JSON.stringify(ended.dispatch)).toBe(cancelled.includes(id) ? "failed" : "finished")
      }
      intercept = () => undefined
      const made = trainJobCreates(world.calls)
      for (const id of ids) {
        const objects = sim.system.list("trainjobs", namespace).filter((t) => jobIdOf(t) === String(id))
        if (cancelled.includes(id)) {
          expect(objects).toEqual([])
          // The copy is named as its TrainJob, whose name every create of the job carried.
          const names = new Set(creates.filter((c) => jobIdOf(c.request.body) === String(id)).map((c) => String((c.request.body as KubeObject).metadata?.["name"])))
          expect(sim.system.list("trainingruntimes", namespace).filter((r) => names.has(String(r.metadata?.["name"])))).toEqual([])
        } else {
          expect(objects).toHaveLength(1)
          expect(made.get(String(objects[0]?.metadata?.["name"]))).toBe(1)
        }
      }
    } finally {
      intercept = () => undefined
      await a.server.close()
      await b.server.close()
    }
  })
})
