// The job controls over the API in process (cancel, hold, release, re-run) with the dispatcher's job control given:
// what each writes to the job's row and history, which cluster call it asks for, and what it refuses.
import { ErrUnreachable } from "@dispatch/effects"
import { Effect } from "effect"
import { describe, expect, test } from "vitest"
import type { ClusterRun } from "../src/dispatch/ClusterRuntime.ts"
import type { JobControl } from "../src/dispatch/JobControl.ts"
import { dispatchPassEffect } from "../src/dispatch/JobDispatch.ts"
import { scriptedCluster, startMs, useDispatchWorld } from "./DispatchWorld.ts"

const w = useDispatchWorld("JobControlRoutes")

/** A job control that answers every transition with `answer`, recording the calls and wakes; `during` runs inside
 * the call (as the dispatcher would, meanwhile). */
const control = (answer: ClusterRun<unknown>, during: () => Promise<void> = async () => undefined) => {
  const calls: Array<readonly [number, string, string]> = []
  let wakes = 0
  const value: JobControl = {
    transitionEffect: (queue, key, which) =>
      Effect.promise(async () => {
        calls.push([queue, key, which])
        await during()
        return answer
      }),
    wake: () => void wakes++
  }
  w.control.current = value
  return { calls, wakes: () => wakes }
}

/** A job opened on the cluster by a pass (its TrainJob made and opened). */
const openedJob = async (): Promise<number> => {
  const id = await w.submit()
  await w.db().run(dispatchPassEffect(w.context(scriptedCluster([{ kind: "ok", value: { namespace: "ml-team", name: "tj" } }, { kind: "ok", value: undefined }])), 8))
  expect((await w.row(id))["dispatch_state"]).toBe("opened")
  return id
}

const later = new Date(startMs + 60_000).toISOString()

describe("cancel", () => {
  test("a queued job nothing of which reached the cluster fails as cancelled at once, and the dispatcher is woken", async () => {
    const id = await w.submit()
    const c = control({ kind: "ok", value: undefined })
    w.clock.now = startMs + 60_000
    const answer = await w.api("POST", `/jobs/${id}/cancel`)
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ id, status: "failed" })
    const row = await w.row(id)
    expect(row).toMatchObject({ status: "failed", last_modified_on: later })
    expect((await w.history(id)).map((h) => h.status)).toEqual(["queued", "failed"])
    expect(c.calls).toEqual([])
    expect(c.wakes()).toBe(1)
  })

  test("an opened job is stopping, its stop left to the dispatcher", async () => {
    const id = await openedJob()
    const c = control({ kind: "ok", value: undefined })
    expect((await w.api("POST", `/jobs/${id}/cancel`)).status).toBe(200)
    expect(await w.row(id)).toMatchObject({ status: "failed", dispatch_state: "stopping", stop_ends: "cancelled" })
    expect(c.wakes()).toBe(1)
  })

  test("a job a dispatcher is starting keeps its claim, so nothing stops it before its Start ends", async () => {
    const id = await w.submit()
    await w.db().query(`update jobs set dispatch_state = 'starting', claimed_by = 'p1', claim_until = $2 where id = $1`, [id, startMs + 1000])
    expect((await w.api("POST", `/jobs/${id}/cancel`)).status).toBe(200)
    expect(await w.row(id)).toMatchObject({ claimed_by: "p1", claim_until: startMs + 1000, status: "failed" })
  })

  test("an ended job is refused, unchanged, and nothing is woken; another group's or a missing job is not found", async () => {
    const id = await w.submit()
    await w.db().query(`update jobs set status = 'finished', dispatch_state = 'done' where id = $1`, [id])
    const c = control({ kind: "ok", value: undefined })
    const before = await w.row(id)
    w.clock.now = startMs + 60_000
    const refused = await w.api("POST", `/jobs/${id}/cancel`)
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({ error: "JobNotControllable" })
    expect(JSON.stringify(refused.body)).toContain("finished")
    expect(await w.row(id)).toEqual(before)
    expect(c.wakes()).toBe(0)
    const missing = await w.api("POST", `/jobs/${id + 1000}/cancel`)
    expect(missing.status).toBe(404)
    expect(missing.body).toMatchObject({ error: "ResourceNotFound" })
    expect(JSON.stringify(missing.body)).toContain("job")
    await w.db().query(`update jobs set grp = 'speech' where id = $1`, [id])
    expect((await w.api("POST", `/jobs/${id}/cancel`)).status).toBe(404)
    await w.db().query(`update jobs set grp = 'vision' where id = $1`, [id])
  })
})

describe("hold and release", () => {
  test("hold asks the dispatcher to hold the job's TrainJob, then stores it held; release lets it run again", async () => {
    const id = await openedJob()
    const key = (await w.row(id))["start_request"].job
    const c = control({ kind: "ok", value: undefined })
    w.clock.now = startMs + 60_000
    const held = await w.api("POST", `/jobs/${id}/hold`)
    expect(held.status).toBe(200)
    expect(held.body).toMatchObject({ id, status: "deferred" })
    expect(c.calls).toEqual([[w.world().queue, key, "hold"]])
    expect(await w.row(id)).toMatchObject({ status: "deferred", dispatch_state: "held", held_from: "queued", last_modified_on: later })
    expect(c.wakes()).toBe(0)
    const released = await w.api("POST", `/jobs/${id}/release`)
    expect(released.status).toBe(200)
    expect(c.calls).toEqual([
      [w.world().queue, key, "hold"],
      [w.world().queue, key, "release"]
    ])
    expect(await w.row(id)).toMatchObject({ status: "queued", dispatch_state: "opened" })
    expect((await w.history(id)).map((h) => h.status)).toEqual(["queued", "deferred", "queued"])
  })

  test("a hold the cluster failed is answered with the typed error, and the job is unchanged", async () => {
    const id = await openedJob()
    const before = await w.row(id)
    // Later than the job's last change: a write would move its modification time.
    w.clock.now = startMs + 60_000
    control({ kind: "error", error: new ErrUnreachable({ reasons: ["patch timed out"] }) })
    const answer = await w.api("POST", `/jobs/${id}/hold`)
    expect(answer.body).toMatchObject({ error: "ClusterActionFailed" })
    expect(JSON.stringify(answer.body)).toContain("patch timed out")
    expect(JSON.stringify(answer.body)).toContain("ErrUnreachable")
    expect(await w.row(id)).toEqual(before)
    control({ kind: "abandoned", reason: "the service is closing" })
    const abandoned = await w.api("POST", `/jobs/${id}/hold`)
    expect(abandoned.body).toMatchObject({ error: "ClusterActionFailed" })
    expect(JSON.stringify(abandoned.body)).toContain("the service is closing")
    expect(JSON.stringify(abandoned.body)).toContain("Abandoned")
    expect(await w.row(id)).toEqual(before)
  })

  test("a release the cluster failed leaves the held job as it was", async () => {
    const id = await openedJob()
    control({ kind: "ok", value: undefined })
    expect((await w.api("POST", `/jobs/${id}/hold`)).status).toBe(200)
    const held = await w.row(id)
    w.clock.now = startMs + 120_000
    control({ kind: "error", error: new ErrUnreachable({ reasons: ["patch timed out"] }) })
    expect((await w.api("POST", `/jobs/${id}/release`)).body).toMatchObject({ error: "ClusterActionFailed" })
    expect(await w.row(id)).toEqual(held)
  })

  test("without a dispatcher, or for a job without a StartRequest, a hold that needs the cluster is refused", async () => {
    const id = await openedJob()
    const before = await w.row(id)
    const none = await w.api("POST", `/jobs/${id}/hold`)
    expect(none.status).toBe(409)
    expect(none.body).toMatchObject({ error: "JobNotControllable" })
    const c = control({ kind: "ok", value: undefined })
    await w.db().query(`update jobs set start_request = null where id = $1`, [id])
    expect((await w.api("POST", `/jobs/${id}/hold`)).status).toBe(409)
    expect(c.calls).toEqual([])
    expect(await w.row(id)).toEqual({ ...before, start_request: null })
  })

  test("a hold whose job ended meanwhile writes nothing more; one whose status moved is written on the job as it is", async () => {
    const ended = await openedJob()
    control({ kind: "ok", value: undefined }, async () => {
      await w.db().query(`update jobs set status = 'finished', dispatch_state = 'done' where id = $1`, [ended])
    })
    expect((await w.api("POST", `/jobs/${ended}/hold`)).status).toBe(200)
    expect(await w.row(ended)).toMatchObject({ status: "finished", dispatch_state: "done" })
    const moved = await openedJob()
    control({ kind: "ok", value: undefined }, async () => {
      await w.db().query(`update jobs set status = 'started' where id = $1`, [moved])
    })
    expect((await w.api("POST", `/jobs/${moved}/hold`)).status).toBe(200)
    expect(await w.row(moved)).toMatchObject({ status: "deferred", dispatch_state: "held", held_from: "started" })
  })

  test("a job deleted while its hold was on the cluster is answered as not found", async () => {
    const id = await openedJob()
    control({ kind: "ok", value: undefined }, async () => {
      await w.db().query(`update jobs set deleted = true where id = $1`, [id])
    })
    const answer = await w.api("POST", `/jobs/${id}/hold`)
    expect(answer.status).toBe(404)
    expect(answer.body).toMatchObject({ error: "ResourceNotFound" })
  })

  test("a queued job not yet on the cluster is held without a cluster call", async () => {
    const id = await w.submit()
    const c = control({ kind: "ok", value: undefined })
    expect((await w.api("POST", `/jobs/${id}/hold`)).status).toBe(200)
    expect(c.calls).toEqual([])
    expect(await w.row(id)).toMatchObject({ status: "deferred", dispatch_state: "pending" })
    expect((await w.api("POST", `/jobs/${id}/release`)).status).toBe(200)
    expect(await w.row(id)).toMatchObject({ status: "queued", dispatch_state: "pending" })
  })
})

describe("re-run", () => {
  test("makes a new queued job from the stored one, naming it as its origin", async () => {
    const id = await w.submit()
    w.clock.now = startMs + 60_000
    const answer = await w.api("POST", `/jobs/${id}/rerun`)
    expect(answer.status).toBe(200)
    expect(answer.body.id).not.toBe(id)
    const [row] = await w.db().query<Record<string, unknown>>(`select rerun_of, status, queue, created_on from jobs where id = $1`, [answer.body.id])
    expect(row).toEqual({ rerun_of: id, status: "queued", queue: w.world().queue, created_on: later })
    expect((await w.api("POST", `/jobs/${id + 1000}/rerun`)).status).toBe(404)
  })
})
