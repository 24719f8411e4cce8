// The status sync's passes in process: following opened jobs with Find and stopping cancelled and deleted ones; checked
// on what the database and the simulator store.
import { ErrRejected, ErrUnreachable } from "@dispatch/effects"
import { defaultRetryPolicy, retryDelayMs } from "@dispatch/jobs"
import { describe, expect, test } from "vitest"
import { dispatchPassEffect } from "../src/dispatch/JobDispatch.ts"
import { Effect, Layer } from "effect"
import type { DispatchContext } from "../src/dispatch/DispatchContext.ts"
import { foundEvent, statusSyncLayer, StatusSyncService, stopPassEffect, syncPassEffect } from "../src/dispatch/StatusSync.ts"
import { scriptedCluster, simulator, startMs, stored, useDispatchWorld } from "./DispatchWorld.ts"
import { failWhen, withTap, type TestDatabase } from "./TestDatabase.ts"

const w = useDispatchWorld("StatusSync")

const dispatchPass = (context: DispatchContext, limit: number) => w.db().run(dispatchPassEffect(context, limit))
const syncPass = (context: DispatchContext, db: TestDatabase = w.db()) => db.run(syncPassEffect(context))
const stopPass = (context: DispatchContext) => w.db().run(stopPassEffect(context))

const ref = { namespace: "ml-team", name: "tj" }
const ok = (value: unknown) => ({ kind: "ok", value }) as const

/** A job opened on the cluster (by a pass whose cluster answers Start and Open). */
const openedJob = async (): Promise<number> => {
  const id = await w.submit()
  await dispatchPass(w.context(scriptedCluster([ok({ ...ref, uid: "u" }), ok(undefined)])), 8)
  expect((await w.row(id))["dispatch_state"]).toBe("opened")
  return id
}

describe("foundEvent", () => {
  test("gives the machine Find's state, with the reason a job keeps when it ends", () => {
    expect(foundEvent({ state: "Absent", ref } as never)).toEqual({ type: "found", found: "Absent", reason: "the TrainJob ml-team/tj no longer exists" })
    expect(foundEvent({ state: "Stopping", ref } as never)).toEqual({ type: "found", found: "Stopping", reason: "the TrainJob ml-team/tj is being deleted" })
    expect(foundEvent({ state: "Failed", ref, reason: "OOMKilled", message: "out of memory" } as never)).toEqual({ type: "found", found: "Failed", reason: "OOMKilled: out of memory" })
    expect(foundEvent({ state: "Succeeded", ref, reason: "Completed" } as never)).toEqual({ type: "found", found: "Succeeded", reason: "Completed" })
    expect(foundEvent({ state: "InFlight", ref, untilMs: 7 } as never)).toEqual({ type: "found", found: "InFlight", untilMs: 7 })
    expect(foundEvent({ state: "Running", ref } as never)).toEqual({ type: "found", found: "Running" })
  })
})

describe("a follow pass", () => {
  test("on the simulator: a started job is followed to its end, each status in its history", async () => {
    const sim = simulator()
    const id = await w.submit()
    const cluster = w.simCluster(sim)
    await dispatchPass(w.context(cluster), 4)
    const running = await syncPass(w.context(cluster))
    expect(running).toEqual({ followed: 1, problems: [] })
    expect((await w.row(id))["status"]).toBe("started")
    sim.advanceTo(sim.now() + 120_000)
    w.clock.now = startMs + 120_000
    await syncPass(w.context(w.simCluster(sim)))
    expect(await w.row(id)).toMatchObject({ status: "finished", dispatch_state: "done" })
    const history = await w.history(id)
    expect(history.map((h) => h.status)).toEqual(["queued", "started", "finished"])
    expect(stored(sim, "trainjobs")).toHaveLength(1)
  })

  test("feeds each job of a queue its own answer, from one Find", async () => {
    const a = await openedJob()
    const b = await openedJob()
    const c = await openedJob()
    const cluster = scriptedCluster([ok([{ state: "Running", ref }, { state: "Failed", ref, reason: "Crash", message: "exit 1" }, { state: "Queued", ref }])])
    expect(await syncPass(w.context(cluster))).toEqual({ followed: 3, problems: [] })
    expect(cluster.runs()).toBe(1)
    expect(await w.row(a)).toMatchObject({ status: "started", dispatch_state: "opened" })
    expect(await w.row(b)).toMatchObject({ status: "failed" })
    expect((await w.history(b)).at(-1)).toEqual({ status: "failed", reason: "Crash: exit 1" })
    expect(await w.row(c)).toMatchObject({ status: "queued", dispatch_state: "opened" })
    // An answer that changes nothing writes nothing: the job's history and modification time stay.
    expect((await w.history(c)).map((h) => h.status)).toEqual(["queued"])
  })

  test("a Find that fails leaves the queue's jobs for the next pass, and is a problem naming the queue and why", async () => {
    const id = await openedJob()
    const before = await w.row(id)
    expect(await syncPass(w.context(scriptedCluster([{ kind: "error", error: new ErrUnreachable({ reasons: ["down"] }) }])))).toEqual({
      followed: 1,
      problems: [`status sync: queue ${w.world().queue}: down`]
    })
    expect(await syncPass(w.context(scriptedCluster([{ kind: "abandoned", reason: "closing" }])))).toEqual({ followed: 1, problems: [] })
    expect(await w.row(id)).toEqual(before)
  })

  test("a queue whose config no longer decodes is skipped without a cluster call", async () => {
    const id = await openedJob()
    await w.db().query(`update queues set backend = jsonb_set(backend, '{config,mode}', '"nonsense"') where id = $1`, [w.world().queue])
    try {
      const cluster = scriptedCluster([ok([{ state: "Succeeded", ref, reason: "done" }])])
      expect(await syncPass(w.context(cluster))).toEqual({ followed: 1, problems: [] })
      expect(cluster.runs()).toBe(0)
      expect((await w.row(id))["status"]).toBe("queued")
    } finally {
      await w.db().query(`update queues set backend = jsonb_set(backend, '{config,mode}', '"plain"') where id = $1`, [w.world().queue])
    }
  })

  test("an opened job without a StartRequest is not followed", async () => {
    const id = await openedJob()
    await w.db().query(`update jobs set start_request = null where id = $1`, [id])
    const cluster = scriptedCluster([ok([])])
    expect(await syncPass(w.context(cluster))).toEqual({ followed: 0, problems: [] })
    expect(cluster.runs()).toBe(0)
  })

  test("a job whose answer cannot be recorded is reported, and the others are still written", async () => {
    const a = await openedJob()
    const b = await openedJob()
    let n = 0
    const broken = await withTap(w.db(), failWhen((text) => (/^\s*begin/i.test(text) && n++ === 0 ? new Error("lost") : undefined)))
    const report = await syncPass(w.context(scriptedCluster([ok([{ state: "Running", ref }, { state: "Running", ref }])])), broken).finally(broken.close)
    expect(report).toEqual({ followed: 2, problems: [`job ${a}: lost`] })
    expect((await w.row(a))["status"]).toBe("queued")
    expect((await w.row(b))["status"]).toBe("started")
  })
})

describe("a stop pass", () => {
  test("on the simulator: a cancelled job's TrainJob and runtime copy are deleted, then it is done", async () => {
    const sim = simulator()
    const id = await w.submit()
    const cluster = w.simCluster(sim)
    await dispatchPass(w.context(cluster), 4)
    expect(stored(sim, "trainjobs")).toHaveLength(1)
    expect((await w.api("POST", `/jobs/${id}/cancel`)).status).toBe(200)
    // Dioptra has no cancelled status: a cancelled job fails, and its stop ends it as cancelled.
    expect(await w.row(id)).toMatchObject({ status: "failed", dispatch_state: "stopping", stop_ends: "cancelled" })
    let stopped = 0
    for (let i = 0; i < 20 && (await w.row(id))["dispatch_state"] === "stopping"; i++) {
      w.clock.now = Math.max(w.clock.now, Number((await w.row(id))["next_attempt_at"]))
      stopped += await stopPass(w.context(cluster))
    }
    expect(stopped).toBe(1)
    expect(await w.row(id)).toMatchObject({ status: "failed", dispatch_state: "done", stop_ends: "cancelled" })
    expect(stored(sim, "trainjobs")).toEqual([])
    expect(stored(sim, "trainingruntimes")).toEqual(["dioptra-torch"])
  })

  test("a job with no StartRequest is stopped without a cluster call", async () => {
    const id = await w.submit()
    expect((await w.api("POST", `/jobs/${id}/cancel`)).status).toBe(200)
    await w.db().query(`update jobs set dispatch_state = 'stopping', next_attempt_at = 0 where id = $1`, [id])
    const cluster = scriptedCluster([ok({ gone: false })])
    expect(await stopPass(w.context(cluster))).toBe(1)
    expect(cluster.runs()).toBe(0)
    expect(await w.row(id)).toMatchObject({ dispatch_state: "done", status: "failed" })
  })

  const stoppingJob = async (): Promise<number> => {
    const id = await openedJob()
    expect((await w.api("POST", `/jobs/${id}/cancel`)).status).toBe(200)
    return id
  }

  test("a Stop that leaves something going comes back later, counting its tries", async () => {
    const id = await stoppingJob()
    expect(await stopPass(w.context(scriptedCluster([ok({ gone: false })])))).toBe(0)
    const row = await w.row(id)
    expect(row).toMatchObject({ dispatch_state: "stopping", stop_tries: 1 })
    expect(Number(row["next_attempt_at"])).toBeGreaterThan(startMs)
    // Not due yet: nothing is tried.
    const cluster = scriptedCluster([ok({ gone: true })])
    expect(await stopPass(w.context(cluster))).toBe(0)
    expect(cluster.runs()).toBe(0)
  })

  test("a failed Stop is retried, with the fault kept as the reason", async () => {
    const id = await stoppingJob()
    expect(await stopPass(w.context(scriptedCluster([{ kind: "error", error: new ErrRejected({ reasons: ["forbidden"] }) }])))).toBe(0)
    const row = await w.row(id)
    expect(row["dispatch_state"]).toBe("stopping")
    expect(row["stop_tries"]).toBe(1)
  })

  test("an abandoned Stop changes nothing", async () => {
    const id = await stoppingJob()
    const before = await w.row(id)
    expect(await stopPass(w.context(scriptedCluster([{ kind: "abandoned", reason: "closing" }])))).toBe(0)
    expect(await w.row(id)).toEqual(before)
  })

  test("a queue whose config no longer decodes makes the Stop fail, without a cluster call", async () => {
    const id = await stoppingJob()
    await w.db().query(`update queues set backend = jsonb_set(backend, '{config,mode}', '"nonsense"') where id = $1`, [w.world().queue])
    try {
      const cluster = scriptedCluster([ok({ gone: true })])
      expect(await stopPass(w.context(cluster))).toBe(0)
      expect(cluster.runs()).toBe(0)
      // A refusal waits the longest retry delay, not the one for a first try.
      const row = await w.row(id)
      expect(row).toMatchObject({ dispatch_state: "stopping", stop_tries: 1 })
      const draw = (128 * 65_536 + 128 * 256 + 128) / 16_777_216
      expect(Number(row["next_attempt_at"])).toBe(startMs + retryDelayMs(defaultRetryPolicy, Number.MAX_SAFE_INTEGER, draw))
      expect(Number(row["next_attempt_at"])).toBeGreaterThan(startMs + retryDelayMs(defaultRetryPolicy, 1, draw))
    } finally {
      await w.db().query(`update queues set backend = jsonb_set(backend, '{config,mode}', '"plain"') where id = $1`, [w.world().queue])
    }
  })

  test("a stop whose job moved meanwhile is dropped, and not counted", async () => {
    const id = await stoppingJob()
    const cluster = {
      run: <A>() =>
        Effect.promise(async () => {
          await w.db().query(`update jobs set status = 'finished' where id = $1`, [id])
          return ok({ gone: true }) as unknown as { kind: "ok"; value: A }
        }),
      close: Effect.void
    }
    expect(await stopPass(w.context(cluster))).toBe(0)
    expect(await w.row(id)).toMatchObject({ dispatch_state: "stopping", status: "finished" })
  })

  test("a job a dispatcher holds is left to it", async () => {
    const id = await stoppingJob()
    await w.db().query(`update jobs set claimed_by = 'other', claim_until = $2 where id = $1`, [id, startMs + 1000])
    const cluster = scriptedCluster([ok({ gone: true })])
    expect(await stopPass(w.context(cluster))).toBe(0)
    expect(cluster.runs()).toBe(0)
    w.clock.now = startMs + 1001
    expect(await stopPass(w.context(cluster))).toBe(1)
  })
})

describe("the status sync service", () => {
  test("follows and stops through the passes over its context", async () => {
    const followed = await openedJob()
    const stopping = await openedJob()
    expect((await w.api("POST", `/jobs/${stopping}/cancel`)).status).toBe(200)
    const cluster = scriptedCluster([ok([{ state: "Running", ref }]), ok({ gone: true })])
    const sync = Effect.runSync(Effect.provide(Effect.service(StatusSyncService), Layer.provide(statusSyncLayer(w.context(cluster)), w.db().layer)))
    expect(await Effect.runPromise(sync.follow)).toEqual({ followed: 1, problems: [] })
    expect((await w.row(followed))["status"]).toBe("started")
    expect(await Effect.runPromise(sync.stopCancelled)).toBe(1)
    expect((await w.row(stopping))["dispatch_state"]).toBe("done")
  })
})
