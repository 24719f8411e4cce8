// Retention's queries on the database alone: which ended jobs are due, the lease that keeps two processes from
// taking one job, the line a failed try goes to the back of, and a job that never reached the cluster.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import type { Database } from "../src/Database.ts"
import type { DispatchContext } from "../src/DispatchContext.ts"
import { migrate } from "../src/Migrations.ts"
import { openPglite } from "../src/PgliteDatabase.ts"
import { recordRemovalFailed, recordRemoved, retentionPass, takeExpiredJobs } from "../src/Retention.ts"
import { jobsInProgress } from "../src/Sweeper.ts"

const hour = 3_600_000
const now = Date.parse("2026-06-01T12:00:00Z")
const iso = (ms: number) => new Date(ms).toISOString()

let db: Database
let entrypoint = 0
let snapshot = 0
let experiment = 0
let queue = 0

const idOf = async (text: string, params: ReadonlyArray<unknown>): Promise<number> => {
  const [row] = await db.query<{ id: number }>(text, [...params])
  if (row === undefined) throw new Error("nothing inserted")
  return row.id
}

// One database for the file (opening and migrating PGlite takes seconds); each test starts without jobs.
beforeAll(async () => {
  db = await openPglite()
  await migrate(db)
  const at = iso(now - 10 * hour)
  experiment = await idOf(`insert into experiments (grp, name, description, created_on, last_modified_on) values ('g', 'e', '', $1, $1) returning id`, [at])
  entrypoint = await idOf(`insert into entrypoints (grp, name, description, created_on, last_modified_on) values ('g', 'ep', '', $1, $1) returning id`, [at])
  snapshot = await idOf(`insert into entrypoint_snapshots (entrypoint, document, created_on) values ($1, '{}', $2) returning id`, [entrypoint, at])
  queue = await idOf(`insert into queues (grp, name, description, created_on, last_modified_on) values ('g', 'q', '', $1, $1) returning id`, [at])
})
beforeEach(async () => {
  await db.query(`delete from job_status_history`)
  await db.query(`delete from jobs`)
})
afterAll(async () => db.close())

/** A job whose status history ends with `status` at `endedAt`, in dispatch state `dispatch`, with a StartRequest for
 * `jobId` (none when null). */
const job = async (status: string, endedAt: number, dispatch: string, jobId: string | null = "01JD8X2Q4M7N9P3R5S6T8V0W1Y", deleted = false): Promise<number> => {
  const id = await idOf(
    `insert into jobs (grp, username, experiment, entrypoint, entrypoint_snapshot, queue, parameter_values, artifact_values, swaps,
       timeout_seconds, description, status, created_on, last_modified_on, dispatch_state, start_request, deleted)
     values ('g', 'u', $1, $2, $3, $4, '{}', '{}', '{}', 60, '', $5, $6, $6, $7, $8::jsonb, $9) returning id`,
    [experiment, entrypoint, snapshot, queue, status, iso(now - 10 * hour), dispatch, jobId === null ? null : JSON.stringify({ job: jobId }), deleted]
  )
  await db.query(`insert into job_status_history (job, status, changed_on) values ($1, 'queued', $2)`, [id, iso(now - 10 * hour)])
  if (status !== "queued") await db.query(`insert into job_status_history (job, status, changed_on) values ($1, $2, $3)`, [id, status, iso(endedAt)])
  return id
}

const ids = (jobs: ReadonlyArray<{ readonly id: number }>) => jobs.map((j) => j.id)

describe("takeExpiredJobs", () => {
  it("takes exactly the finished and failed jobs whose dispatch is done and whose last status is at least the retention old", async () => {
    const old = await job("finished", now - 2 * hour, "done")
    const oldFailed = await job("failed", now - hour, "done")
    await job("finished", now - hour + 1, "done")
    await job("failed", now - 3 * hour, "stopping")
    await job("started", now - 3 * hour, "opened")
    await job("queued", now - 3 * hour, "pending")
    const deleted = await job("finished", now - 3 * hour, "done", "01JD8X2Q4M7N9P3R5S6T8V0W1A", true)
    expect(ids(await takeExpiredJobs(db, now, iso(now - hour), 60_000, 10))).toEqual([old, oldFailed, deleted])
  })

  it("leases what it takes: a second taker gets nothing until the lease ends", async () => {
    const id = await job("finished", now - 2 * hour, "done")
    expect(await takeExpiredJobs(db, now, iso(now - hour), 60_000, 10)).toEqual([{ id, queue, key: "01JD8X2Q4M7N9P3R5S6T8V0W1Y" }])
    expect(await takeExpiredJobs(db, now + 59_999, iso(now - hour), 60_000, 10)).toEqual([])
    expect(ids(await takeExpiredJobs(db, now + 60_000, iso(now - hour), 60_000, 10))).toEqual([id])
  })

  it("puts a job whose try failed behind those not tried, and never takes a removed job again", async () => {
    const first = await job("finished", now - 2 * hour, "done")
    const second = await job("finished", now - 2 * hour, "done")
    expect(ids(await takeExpiredJobs(db, now, iso(now - hour), 0, 1))).toEqual([first])
    await recordRemovalFailed(db, first, now, "ErrUnreachable: down")
    expect(ids(await takeExpiredJobs(db, now, iso(now - hour), 0, 1))).toEqual([second])
    await recordRemoved(db, second, iso(now), null)
    expect(ids(await takeExpiredJobs(db, now + 1, iso(now - hour), 0, 10))).toEqual([first])
    expect(await db.query(`select cluster_removal_reason as reason from jobs where id = $1`, [first])).toEqual([{ reason: "ErrUnreachable: down" }])
  })
})

describe("retentionPass", () => {
  it("marks a job that never reached the cluster as done without a cluster call, and counts no removal", async () => {
    const id = await job("failed", now - 2 * hour, "done", null)
    const lines: Array<string> = []
    const context = {
      db,
      clock: () => now,
      now: () => iso(now),
      leaseMs: 60_000,
      cluster: { run: () => Promise.reject(new Error("no cluster call expected")), close: () => Promise.resolve() }
    } as unknown as DispatchContext
    expect(await retentionPass(context, hour, 10, (l) => void lines.push(l))).toEqual({ taken: 1, removed: 0, failures: [] })
    expect(await db.query(`select cluster_removed_on is not null as removed, cluster_removal_reason as reason from jobs where id = $1`, [id])).toEqual([
      { removed: true, reason: "it never reached the cluster" }
    ])
    expect(lines).toEqual([])
    expect(await retentionPass(context, hour, 10, () => undefined)).toEqual({ taken: 0, removed: 0, failures: [] })
  })
})

describe("jobsInProgress (the sweeper keeps their copies)", () => {
  it("is every job with a StartRequest whose dispatch is not done, but not a deleted job never put back on the cluster", async () => {
    await job("queued", now, "pending", "01JD8X2Q4M7N9P3R5S6T8V0W10")
    await job("queued", now, "starting", "01JD8X2Q4M7N9P3R5S6T8V0W11")
    await job("started", now, "opened", "01JD8X2Q4M7N9P3R5S6T8V0W12")
    await job("failed", now, "stopping", "01JD8X2Q4M7N9P3R5S6T8V0W13", true)
    await job("finished", now, "done", "01JD8X2Q4M7N9P3R5S6T8V0W14")
    await job("queued", now, "pending", "01JD8X2Q4M7N9P3R5S6T8V0W15", true)
    await job("queued", now, "pending", null)
    expect([...(await jobsInProgress(db))].sort()).toEqual(["01JD8X2Q4M7N9P3R5S6T8V0W10", "01JD8X2Q4M7N9P3R5S6T8V0W11", "01JD8X2Q4M7N9P3R5S6T8V0W12", "01JD8X2Q4M7N9P3R5S6T8V0W13"])
  })
})
