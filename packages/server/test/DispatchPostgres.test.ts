import { afterAll, beforeAll, describe, expect, test } from "vitest"
import {
  dispatchingService,
  eventually,
  jobWhen,
  registerSimWorld,
  simWorld,
  skippingClock,
  submit,
  trainJobCreates,
  type SimWorld
} from "./ClusterWorld.ts"
import { DatabaseError } from "../src/store/Database.ts"
import { pass, startDispatcher } from "./TestDispatcher.ts"
import { failWhen, openPostgres, withTap, type TestDatabase as Database } from "./TestDatabase.ts"
import { client, started, tokens } from "./Fixtures.ts"
import { testPostgres, type TestPostgres } from "./TestPostgres.ts"

/** A database whose queries matching `when` fail while `failing` is above zero, as a lost connection would. */
const faulty = async (db: Database, when: RegExp) => {
  let failing = 0
  const wrapped = await withTap(
    db,
    failWhen((text) => (failing > 0 && when.test(text) && failing-- > 0 ? new DatabaseError({ operation: "query", reason: "injected fault" }) : undefined))
  )
  return { db: wrapped, fail: (times: number) => void (failing = times) }
}

/** How many jobs two services dispatch together (the 500). */
const manyJobs = Number(process.env["DISPATCH_MANY"] ?? 500)

// Real time over real PostgreSQL and HTTP: each test's bound is for a busy machine, not an idle one.
describe("two service processes on one PostgreSQL", { timeout: 300_000 }, () => {
  let postgres: TestPostgres | undefined
  let world: SimWorld | undefined
  beforeAll(async () => {
    postgres = await testPostgres()
    // 32 Starts in flight at once share this process with the simulator and both services.
    world = await simWorld({ controllers: { trainer: { runTimeMs: 1000 } } }, undefined, 30_000)
  })
  afterAll(async () => {
    await world?.close()
    await postgres?.release()
  })

  test(`dispatch ${manyJobs} jobs between them: each TrainJob is created exactly once and every job finishes`, async () => {
    if (postgres === undefined || world === undefined) throw new Error("not started")
    const options = { databaseUrl: postgres.url, dispatch: { autorun: false, concurrency: 16 } }
    const a = await dispatchingService(world, options)
    const b = await dispatchingService(world, options)
    try {
      const w = await registerSimWorld(a.alice, "two")
      const ids: Array<number> = []
      for (let i = 0; i < manyJobs; i += 50) {
        const batch = await Promise.all(Array.from({ length: Math.min(50, manyJobs - i) }, () => submit(a.alice, w)))
        ids.push(...batch.map((j) => j.id))
      }
      const byInstance = { a: 0, b: 0 }
      const dispatcherA = a.server.dispatcher
      const dispatcherB = b.server.dispatcher
      if (dispatcherA === undefined || dispatcherB === undefined) throw new Error("no dispatchers")
      const count = async (status: string) => (await a.alice("GET", `/experiments/${w.experiment}/jobs?search=${status}&pageLength=1`)).body.totalNumResults as number
      const ended = async () => (await count("finished")) + (await count("failed"))
      // Both passes run at once, each claiming from the same rows, until every job has ended (bounded).
      for (const end = Date.now() + 420_000; Date.now() < end && (await ended()) < manyJobs; ) {
        const [ra, rb] = await Promise.all([pass(dispatcherA), pass(dispatcherB)])
        byInstance.a += ra.dispatched
        byInstance.b += rb.dispatched
        if (ra.dispatched + rb.dispatched === 0) await new Promise((resolve) => setTimeout(resolve, 20))
      }
      const failed = (await a.alice("GET", `/experiments/${w.experiment}/jobs?search=failed&pageLength=5`)).body.data.map((j: any) => j.dispatch)
      expect(failed).toEqual([])
      expect(await count("finished")).toBe(manyJobs)
      expect(byInstance.a + byInstance.b).toBe(manyJobs)
      expect(byInstance.a).toBeGreaterThan(0)
      expect(byInstance.b).toBeGreaterThan(0)
      const creates = trainJobCreates(world.calls)
      const names = new Set<string>()
      for (const id of ids) {
        const job = (await a.alice("GET", `/jobs/${id}`)).body
        expect(job.dispatch.attempts).toBe(1)
        names.add(job.dispatch.trainJob.name)
        expect(creates.get(job.dispatch.trainJob.name)).toBe(1)
      }
      expect(names.size).toBe(manyJobs)
      expect(creates.size).toBe(manyJobs)
    } finally {
      await a.server.close()
      await b.server.close()
    }
  }, 480_000)

  test("a database failure while recording an opened job: reported by the pass, and the job is taken over after its lease, found, and run once", async () => {
    if (postgres === undefined || world === undefined) throw new Error("not started")
    const front = await started({ databaseUrl: postgres.url })
    const db = await openPostgres(postgres.url)
    // The write of the job opened (the only write that sets held_from is the machine's running or holding state).
    const fault = await faulty(db, /update jobs set dispatch_state = .*held_from = /)
    const clock = skippingClock()
    const dispatcher = await startDispatcher(
      { cluster: world.cluster, autorun: false, leaseMs: 30_000, syncMs: 0 },
      { clock: clock.now, entropy: (n) => Array.from({ length: n }, (_, i) => (i * 37 + 11) % 256), secret: "00", reportUrl: `${front.url}/api/v1` },
      fault.db
    )
    try {
      const alice = client(front.url, tokens.alice)
      const w = await registerSimWorld(alice, "db-fault")
      const job = await submit(alice, w)
      fault.fail(1)
      // The first pass starts the queue's probe; once it has stored the gate, a pass dispatches.
      let first = await dispatcher.pass()
      await dispatcher.proven()
      if (first.dispatched === 0) first = await eventually(() => dispatcher.pass(), (pass) => pass.dispatched > 0)
      expect(first.problems).toEqual([`job ${job.id}: database query failed: injected fault`])
      expect((await alice("GET", `/jobs/${job.id}`)).body.dispatch).toMatchObject({ state: "owned", attempts: 1 })
      clock.skip(60_000)
      const ended = await eventually(
        async () => {
          await dispatcher.pass()
          return (await alice("GET", `/jobs/${job.id}`)).body
        },
        (j) => j.status === "finished"
      )
      expect(ended.dispatch).toMatchObject({ state: "done", attempts: 2 })
      expect(trainJobCreates(world.calls).get(ended.dispatch.trainJob.name)).toBe(1)
    } finally {
      await dispatcher.close()
      await db.close()
      await front.close()
    }
  })

  const restarts = [
    { name: "restarted under its own name: its claims are taken over at once", instance: "service-1", skipMs: 0 },
    { name: "replaced by another process: the claim is taken over once its lease ends", instance: undefined, skipMs: 120_000 }
  ] as const

  test.each(restarts)("a service killed mid-dispatch, $name; nothing lost, nothing doubled", async ({ instance, skipMs }) => {
    if (postgres === undefined || world === undefined) throw new Error("not started")
    const dispatch = { leaseMs: 60_000, ...(instance === undefined ? {} : { instance }) }
    const first = await dispatchingService(world, { databaseUrl: postgres.url, dispatch })
    const sim = world.sim
    let jobId = 0
    let name = ""
    try {
      const w = await registerSimWorld(first.alice, `restart-${skipMs}`)
      await eventually(async () => (await first.alice("GET", `/queues/${w.queue}`)).body.gate.state, (s) => s === "open")
      // The create lands at once but its answer comes late: the service is killed while Start waits for it.
      // Long enough for the test to see the TrainJob and kill the service first, however busy the machine;
      // shorter than the call timeout, so the service would otherwise get its answer.
      sim.setFaults([{ verb: "create", resource: "trainjobs", action: { type: "delay", ms: 3500 } }])
      jobId = (await submit(first.alice, w)).id
      const created = await eventually(
        async () => sim.system.list("trainjobs", "ml-team").filter((t) => (t["spec"] as any).trainer.env.some((e: any) => e.name === "DIOPTRA_JOB_ID" && e.value === String(jobId))),
        (found) => found.length === 1
      )
      name = String(created[0]?.metadata?.["name"])
    } finally {
      await first.server.close()
      sim.setFaults([])
    }
    const killed = (await fetch(`${first.server.url}/api/v1/jobs/${jobId}`).catch(() => undefined)) === undefined
    expect(killed).toBe(true)
    const clock = skippingClock()
    clock.skip(skipMs)
    const second = await dispatchingService(world, { databaseUrl: postgres.url, clock: clock.now, dispatch })
    try {
      const finished = await jobWhen(second.alice, jobId, (j) => j.status === "finished")
      expect(finished.dispatch).toMatchObject({ attempts: 2, trainJob: { name } })
      expect(trainJobCreates(world.calls).get(name)).toBe(1)
      expect((await second.alice("GET", `/jobs/${jobId}/status`)).body.history.map((h: { status: string }) => h.status)).toEqual(["queued", "started", "finished"])
    } finally {
      await second.server.close()
    }
  })
})
