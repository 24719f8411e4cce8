// The dispatcher's queries on the database: gates, probe leases, the service's secrets, claims and their leases,
// and which jobs the follow and stop passes take; checked on what the database stores.
import { defaultRetryPolicy } from "@dispatch/jobs"
import { describe, expect, test } from "vitest"
import {
  claimJobs,
  markProving,
  openedJobs,
  queueConfigs,
  queuesToProve,
  readGate,
  readGates,
  releaseClaim,
  releaseOwnClaims,
  releaseProbeLease,
  saveStartRequest,
  saveTrainJob,
  serviceSecret,
  stoppingJobs,
  takeProbeLease,
  writeGate
} from "./DispatchQueries.ts"
import { startMs, useDispatchWorld } from "./DispatchWorld.ts"

const w = useDispatchWorld("DispatchStore")
const at = new Date(startMs).toISOString()
const input = (nowMs = startMs) => ({ nowMs, policy: defaultRetryPolicy, draw: 0.5 })

describe("gates", () => {
  test("a written gate is read back, an open one without a reason; a queue never proven has none", async () => {
    const q = w.world().queue
    await writeGate(w.db(), q, { state: "closed", reason: "no access" }, "2026-06-01T10:00:00.000Z", 10)
    expect(await readGate(w.db(), q)).toEqual({ queue: q, state: "closed", reason: "no access", checkedOn: "2026-06-01T10:00:00.000Z", checkedAt: 10 })
    await writeGate(w.db(), q, { state: "open" }, at, 20)
    expect(await readGate(w.db(), q)).toEqual({ queue: q, state: "open", reason: "", checkedOn: at, checkedAt: 20 })
    expect((await readGates(w.db())).get(q)).toEqual({ queue: q, state: "open", reason: "", checkedOn: at, checkedAt: 20 })
    expect(await readGate(w.db(), q + 1000)).toBeUndefined()
    expect((await readGates(w.db())).has(q + 1000)).toBe(false)
  })

  test("a probe marks a queue proving unless it is open", async () => {
    const q = w.world().queue
    await markProving(w.db(), q, "probing", "2026-06-01T11:00:00.000Z", 30)
    expect(await readGate(w.db(), q)).toMatchObject({ state: "open", checkedAt: startMs })
    await writeGate(w.db(), q, { state: "read-only", reason: "forbidden" }, at, 5)
    await markProving(w.db(), q, "probing", "2026-06-01T11:00:00.000Z", 30)
    expect(await readGate(w.db(), q)).toEqual({ queue: q, state: "proving", reason: "probing", checkedOn: "2026-06-01T11:00:00.000Z", checkedAt: 30 })
    await w.db().query(`delete from queue_gates where queue = $1`, [q])
    await markProving(w.db(), q, "first", at, 1)
    expect(await readGate(w.db(), q)).toMatchObject({ state: "proving", reason: "first", checkedAt: 1 })
  })

  test("queues to prove: all of them, or those never proven and those not open proven before the time", async () => {
    const q = w.world().queue
    const ids = async (all: boolean, before: number) => (await queuesToProve(w.db(), all, before)).map((r) => r.id)
    expect(await ids(true, 0)).toContain(q)
    expect(await ids(false, startMs + 1)).not.toContain(q)
    await writeGate(w.db(), q, { state: "closed", reason: "x" }, at, 100)
    expect(await ids(false, 99)).not.toContain(q)
    expect(await ids(false, 100)).toContain(q)
    await w.db().query(`delete from queue_gates where queue = $1`, [q])
    expect(await ids(false, 0)).toContain(q)
    const [row] = await queuesToProve(w.db(), true, 0)
    expect(row?.backend).toMatchObject({ config: { namespace: "ml-team" } })
  })
})

describe("probe leases and secrets", () => {
  test("one holder at a time until the lease ends or is given back; the holder renews its own", async () => {
    const ns = `ns-${Math.random()}`
    expect(await takeProbeLease(w.db(), ns, "a", 0, 100)).toBe(true)
    expect(await takeProbeLease(w.db(), ns, "b", 50, 150)).toBe(false)
    expect(await takeProbeLease(w.db(), ns, "b", 100, 150)).toBe(false)
    expect(await takeProbeLease(w.db(), ns, "a", 60, 200)).toBe(true)
    expect(await takeProbeLease(w.db(), ns, "b", 199, 300)).toBe(false)
    expect(await takeProbeLease(w.db(), ns, "b", 201, 300)).toBe(true)
    await releaseProbeLease(w.db(), ns, "a")
    expect(await takeProbeLease(w.db(), ns, "c", 202, 400)).toBe(false)
    await releaseProbeLease(w.db(), ns, "b")
    expect(await takeProbeLease(w.db(), ns, "c", 202, 400)).toBe(true)
  })

  test("a secret is made by the first process to ask, and every later one gets it", async () => {
    const name = `key-${Math.random()}`
    expect(await serviceSecret(w.db(), name, "first")).toBe("first")
    expect(await serviceSecret(w.db(), name, "second")).toBe("first")
  })
})

describe("claims", () => {
  test("claims due queued jobs on open queues, oldest first, up to the limit, leased to the holder", async () => {
    const a = await w.submit()
    const b = await w.submit()
    const c = await w.submit()
    const claimed = await claimJobs(w.db(), "p1", input(), 1000, 2, at)
    expect(claimed.map((j) => j.row.id)).toEqual([a, b])
    expect(claimed[0]).toMatchObject({ row: { claimedBy: "p1", dispatchState: "starting" }, state: { kind: "starting" }, commands: [{ type: "start" }], startRequest: null })
    expect(await w.row(a)).toMatchObject({ claimed_by: "p1", claim_until: startMs + 1000, dispatch_state: "starting", attempts: 1 })
    expect(await w.row(c)).toMatchObject({ claimed_by: null, dispatch_state: "pending" })
    // Held jobs are not claimed again until their lease ends.
    expect((await claimJobs(w.db(), "p2", input(startMs + 1000), 1000, 10, at)).map((j) => j.row.id)).toEqual([c])
    expect((await claimJobs(w.db(), "p2", input(startMs + 1001), 1000, 10, at)).map((j) => j.row.id)).toEqual([a, b])
    expect(await w.row(a)).toMatchObject({ claimed_by: "p2", claim_until: startMs + 2001 })
  })

  test("skips jobs not yet due, deleted or not queued, and jobs on queues not open", async () => {
    const due = await w.submit()
    const later = await w.submit()
    const deleted = await w.submit()
    const started = await w.submit()
    await w.db().query(`update jobs set next_attempt_at = $2 where id = $1`, [later, startMs + 1])
    await w.db().query(`update jobs set deleted = true where id = $1`, [deleted])
    await w.db().query(`update jobs set status = 'started' where id = $1`, [started])
    await writeGate(w.db(), w.world().queue, { state: "closed", reason: "x" }, at, startMs)
    expect(await claimJobs(w.db(), "p", input(), 1000, 10, at)).toEqual([])
    await writeGate(w.db(), w.world().queue, { state: "open" }, at, startMs)
    expect((await claimJobs(w.db(), "p", input(), 1000, 10, at)).map((j) => j.row.id)).toEqual([due])
    expect((await claimJobs(w.db(), "p", input(startMs + 1), 1000, 10, at)).map((j) => j.row.id)).toEqual([later])
  })

  test("an unanswered create is claimed once its bound passed, to be looked for; its stored request comes with it", async () => {
    const id = await w.submit()
    await w.db().query(`update jobs set dispatch_state = 'unknown', attempts = 1, next_attempt_at = $2, lands_by = $2, start_request = '{"job":"J"}'::jsonb where id = $1`, [id, startMs + 10])
    expect(await claimJobs(w.db(), "p", input(startMs + 9), 1000, 10, at)).toEqual([])
    const [claimed] = await claimJobs(w.db(), "p", input(startMs + 10), 1000, 10, at)
    expect(claimed).toMatchObject({ state: { kind: "claimed" }, commands: [{ type: "look" }], startRequest: { job: "J" }, row: { key: "J" } })
  })

  test("an unanswered create whose retry time came but whose bound has not passed is left alone", async () => {
    const id = await w.submit()
    await w.db().query(`update jobs set dispatch_state = 'unknown', attempts = 1, next_attempt_at = $2, lands_by = $3 where id = $1`, [id, startMs, startMs + 10])
    expect(await claimJobs(w.db(), "p", input(), 1000, 10, at)).toEqual([])
    expect(await w.row(id)).toMatchObject({ claimed_by: null, claim_until: null, dispatch_state: "unknown", attempts: 1 })
  })

  test("a kept StartRequest is never replaced; a TrainJob is recorded; a claim is given back only by its holder", async () => {
    const id = await w.submit()
    await saveStartRequest(w.db(), id, { job: "first" })
    await saveStartRequest(w.db(), id, { job: "second" })
    expect((await w.row(id))["start_request"]).toEqual({ job: "first" })
    await saveTrainJob(w.db(), id, { namespace: "ns", name: "tj" })
    expect((await w.row(id))["trainjob"]).toEqual({ namespace: "ns", name: "tj" })
    await claimJobs(w.db(), "p1", input(), 1000, 10, at)
    await releaseClaim(w.db(), id, "p2")
    expect(await w.row(id)).toMatchObject({ claimed_by: "p1", claim_until: startMs + 1000 })
    await releaseClaim(w.db(), id, "p1")
    expect(await w.row(id)).toMatchObject({ claimed_by: null, claim_until: null })
  })

  test("a restarted process frees the claims it held, and only those", async () => {
    const a = await w.submit()
    const b = await w.submit()
    await claimJobs(w.db(), "p1", input(), 1000, 1, at)
    await claimJobs(w.db(), "p2", input(), 1000, 1, at)
    expect(await releaseOwnClaims(w.db(), "p1")).toBe(1)
    expect(await w.row(a)).toMatchObject({ claimed_by: "p1", claim_until: 0 })
    expect(await w.row(b)).toMatchObject({ claimed_by: "p2", claim_until: startMs + 1000 })
    expect(await releaseOwnClaims(w.db(), "p3")).toBe(0)
    // Freed, it is taken over at once.
    expect((await claimJobs(w.db(), "p3", input(), 1000, 10, at)).map((j) => j.row.id)).toEqual([a])
  })
})

describe("the follow and stop passes' jobs", () => {
  test("opened jobs not deleted, by id; stopping jobs due and held by no one, deleted ones too", async () => {
    const opened = await w.submit()
    const deletedOpened = await w.submit()
    const stopping = await w.submit()
    const notDue = await w.submit()
    const held = await w.submit()
    const expired = await w.submit()
    await w.db().query(`update jobs set dispatch_state = 'opened' where id = any($1::int[])`, [[opened, deletedOpened]])
    await w.db().query(`update jobs set deleted = true where id = $1`, [deletedOpened])
    await w.db().query(`update jobs set dispatch_state = 'stopping', next_attempt_at = $2, deleted = true where id = $1`, [stopping, startMs])
    await w.db().query(`update jobs set dispatch_state = 'stopping', next_attempt_at = $2 where id = $1`, [notDue, startMs + 1])
    await w.db().query(`update jobs set dispatch_state = 'stopping', next_attempt_at = 0, claimed_by = 'x', claim_until = $2 where id = $1`, [held, startMs])
    await w.db().query(`update jobs set dispatch_state = 'stopping', next_attempt_at = 0, claimed_by = 'x', claim_until = $2 where id = $1`, [expired, startMs - 1])
    const rows = await openedJobs(w.db())
    expect(rows.map((r) => r.id)).toEqual([opened])
    expect(rows[0]).toMatchObject({ dispatchState: "opened", queue: w.world().queue, group: "vision", attempts: 0 })
    expect((await stoppingJobs(w.db(), startMs)).map((r) => r.id)).toEqual([stopping, expired])
    expect((await stoppingJobs(w.db(), startMs + 1)).map((r) => r.id)).toEqual([stopping, notDue, held, expired])
  })

  test("queue configs by id, for queues with a backend", async () => {
    const q = w.world().queue
    expect(await queueConfigs(w.db(), [])).toEqual(new Map())
    const configs = await queueConfigs(w.db(), [q, q + 1000])
    expect([...configs.keys()]).toEqual([q])
    expect(configs.get(q)).toMatchObject({ namespace: "ml-team", mode: "plain" })
  })
})
