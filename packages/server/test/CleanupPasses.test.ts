// The cleanup's passes on the database alone, with the cluster's answers given: which ended jobs retention takes,
// the lease that keeps two processes from taking one job, the line a failed try goes to the back of, what it
// records for each of Stop's answers; which namespaces the sweeper sweeps, how often, and what it reports; and
// how often the two run.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import type { DispatchContext } from "../src/dispatch/DispatchContext.ts"
import { clusterRemovals } from "../src/store/ClusterRemovals.ts"
import { failWhen, migrateTest, openPglite, withTap, type TestDatabase as Database } from "./TestDatabase.ts"
import { ErrInvalid, ErrRejected, ErrUnreachable } from "@dispatch/effects"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { PrometheusMetrics } from "effect/observability"
import { clusterCleanup, retentionBatch } from "../src/dispatch/ClusterCleanup.ts"
import type { ClusterRun } from "../src/dispatch/ClusterRuntime.ts"
import { retentionPassEffect, takeExpiredJobs as takeExpired } from "../src/dispatch/Retention.ts"
import { jobsInProgress as inProgress, sweeper, sweptBackends as backendsSwept } from "../src/dispatch/Sweeper.ts"

const hour = 3_600_000
const now = Date.parse("2026-06-01T12:00:00Z")
const iso = (ms: number) => new Date(ms).toISOString()

let db: Database

const takeExpiredJobs = (on: Database, nowMs: number, endedBefore: string, leaseMs: number, limit: number) => on.run(takeExpired(nowMs, endedBefore, leaseMs, limit))
const recordRemovalFailed = (on: Database, id: number, nowMs: number, reason: string) => on.run(Effect.flatMap(clusterRemovals, (r) => r.recordRemovalFailed(id, nowMs, reason)))
const recordRemoved = (on: Database, id: number, at: string, reason: string | null) => on.run(Effect.flatMap(clusterRemovals, (r) => r.recordRemoved(id, at, reason)))
const retentionPass = (context: DispatchContext, retentionMs: number, limit: number, log: (line: string) => void) => db.run(retentionPassEffect(context, retentionMs, limit, log))
const jobsInProgress = (on: Database) => on.run(inProgress)
const sweptBackends = (on: Database) => on.run(backendsSwept)
/** One pass of the sweeper or the cleanup, on the file's database or `on`. */
const pass = <A>(part: { readonly run: Effect.Effect<A, unknown, SqlClient.SqlClient> }, on: Database = db) => on.run(part.run)
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
  await migrateTest(db)
  const at = iso(now - 10 * hour)
  experiment = await idOf(`insert into experiments (grp, name, description, created_on, last_modified_on) values ('g', 'e', '', $1, $1) returning id`, [at])
  entrypoint = await idOf(`insert into entrypoints (grp, name, description, created_on, last_modified_on) values ('g', 'ep', '', $1, $1) returning id`, [at])
  snapshot = await idOf(`insert into entrypoint_snapshots (entrypoint, document, created_on) values ($1, '{}', $2) returning id`, [entrypoint, at])
  queue = await idOf(`insert into queues (grp, name, description, created_on, last_modified_on) values ('g', 'q', '', $1, $1) returning id`, [at])
})
beforeEach(async () => {
  await db.query(`delete from job_status_history`)
  await db.query(`delete from jobs`)
  await db.query(`delete from queue_gates`)
  await db.query(`delete from queues where id <> $1`, [queue])
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
      clock: () => now,
      now: () => iso(now),
      leaseMs: 60_000,
      cluster: { run: () => Effect.die(new Error("no cluster call expected")), close: Effect.void }
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

/** A backend config the queue's backend column holds (decodable), and its gate. */
const backendConfig = (namespace: string) => ({ config: { namespace, mode: "plain", runtimes: [{ kind: "TrainingRuntime", name: "torch" }] } })

const setQueue = async (id: number, backend: unknown, gate: "open" | "read-only" | null) => {
  await db.query(`update queues set backend = $2::jsonb where id = $1`, [id, backend === null ? null : JSON.stringify(backend)])
  await db.query(`delete from queue_gates where queue = $1`, [id])
  if (gate !== null) await db.query(`insert into queue_gates (queue, state, reason, checked_on, checked_at) values ($1, $2, '', $3, 0)`, [id, gate, iso(now)])
}

/** A dispatcher context over the test database whose cluster answers every operation with `answer`. */
const contextOf = (answer: ClusterRun<unknown>, clock: () => number = () => now): DispatchContext & { readonly runs: Array<unknown> } => {
  const runs: Array<unknown> = []
  return {
    clock,
    now: () => iso(clock()),
    leaseMs: 60_000,
    runs,
    cluster: {
      run: (effect: unknown) =>
        Effect.sync(() => {
          runs.push(effect)
          return answer
        }),
      close: Effect.void
    }
  } as unknown as DispatchContext & { readonly runs: Array<unknown> }
}

describe("retentionPass, by Stop's answer", () => {
  beforeEach(async () => setQueue(queue, backendConfig("ml-team"), "open"))

  it.each([
    ["gone", { kind: "ok", value: { ref: {}, remaining: [], gone: true } }, { removed: true, reason: null }, 1, []],
    [
      "objects still going",
      { kind: "ok", value: { ref: {}, remaining: ["TrainJob ml-team/x", "TrainingRuntime ml-team/x"], gone: false } },
      { removed: false, reason: "still on the cluster: TrainJob ml-team/x, TrainingRuntime ml-team/x" },
      0,
      ["retention: job ID: still on the cluster: TrainJob ml-team/x, TrainingRuntime ml-team/x"]
    ],
    [
      "ErrUnreachable",
      { kind: "error", error: new ErrUnreachable({ reasons: ["down", "still down"] }) },
      { removed: false, reason: "ErrUnreachable: down; still down" },
      0,
      ["retention: job ID: ErrUnreachable: down; still down"]
    ],
    [
      "ErrRejected (a TrainJob dispatch did not make)",
      { kind: "error", error: new ErrRejected({ reasons: ["not ours", "no labels"] }) },
      { removed: true, reason: "not removed: ErrRejected: not ours; no labels" },
      0,
      []
    ],
    ["ErrInvalid", { kind: "error", error: new ErrInvalid({ reasons: ["bad key"] }) }, { removed: true, reason: "not removed: ErrInvalid: bad key" }, 0, []],
    ["abandoned (the service closing)", { kind: "abandoned", reason: "closing" }, { removed: false, reason: "interrupted: the service closed" }, 0, []]
  ] as const)("Stop %s", async (_, answer, stored, removed, failures) => {
    const id = await job("finished", now - 2 * hour, "done")
    const context = contextOf(answer as ClusterRun<unknown>)
    const lines: Array<string> = []
    const report = await retentionPass(context, hour, 10, (l) => void lines.push(l))
    expect(report).toEqual({ taken: 1, removed, failures: failures.map((f) => f.replace("ID", String(id))) })
    expect(context.runs).toHaveLength(1)
    expect(await db.query(`select cluster_removed_on is not null as removed, cluster_removal_reason as reason from jobs where id = $1`, [id])).toEqual([stored])
    // A job left for a later pass is due again at once (it went to the back of the line), not after a lease.
    expect(ids(await takeExpiredJobs(db, now, iso(now - hour), 0, 10))).toEqual(stored.removed ? [] : [id])
    expect(lines).toEqual(
      removed === 1
        ? [`dispatch retention: removed the TrainJob and runtime copy of job ${id} (JobID 01JD8X2Q4M7N9P3R5S6T8V0W1Y) from the cluster`]
        : failures.map((f) => `dispatch retention: job ${id}: not removed yet: ${f.slice("retention: job ID: ".length)}`)
    )
  })

  it("a queue whose backend no longer decodes leaves the job for a later pass, with every reason, and calls no cluster", async () => {
    await setQueue(queue, { config: { namespace: "", mode: "neither" } }, "open")
    const id = await job("finished", now - 2 * hour, "done")
    const context = contextOf({ kind: "ok", value: {} })
    const report = await retentionPass(context, hour, 10, () => undefined)
    expect(report.failures).toEqual([expect.stringMatching(new RegExp(`^retention: job ${id}: queue ${queue}'s backend: [^;]+; .+`))])
    expect(context.runs).toEqual([])
  })

  it("takes only jobs that ended at least the retention ago by the service's clock", async () => {
    const young = await job("finished", now - hour + 1000, "done")
    const old = await job("finished", now - hour, "done")
    const context = contextOf({ kind: "ok", value: { ref: {}, remaining: [], gone: true } })
    expect(await retentionPass(context, hour, 10, () => undefined)).toEqual({ taken: 1, removed: 1, failures: [] })
    expect(await db.query(`select id from jobs where cluster_removed_on is not null`)).toEqual([{ id: old }])
    expect(ids(await takeExpiredJobs(db, now + 1000, iso(now + 1000 - hour), 0, 10))).toEqual([young])
  })
})

describe("the sweeper's pass", () => {
  const answer = { kind: "ok", value: { deleted: [], failed: [] } } as const

  it("sweeps each namespace once, on a backend whose gate is open, and not again before everyMs", async () => {
    await setQueue(queue, backendConfig("ml-team"), "open")
    const at = iso(now)
    const more = async (backend: unknown, gate: "open" | "read-only" | null) => {
      const id = await idOf(`insert into queues (grp, name, description, created_on, last_modified_on) values ('g', $2, '', $1, $1) returning id`, [at, `q${Math.random()}`])
      await setQueue(id, backend, gate)
    }
    await more(backendConfig("ml-team"), "open")
    await more(backendConfig("read-only-team"), "read-only")
    await more(backendConfig("unproven-team"), null)
    await more({ config: { namespace: "" } }, "open")
    await more(null, null)
    await more(backendConfig("vision"), "open")
    let clock = now
    const context = contextOf(answer, () => clock)
    const swept = sweeper(context, { graceMs: hour, everyMs: 60_000 }, () => undefined)
    expect(await pass(swept)).toEqual({ deleted: 0, failures: [] })
    expect(context.runs).toHaveLength(2)
    clock += 59_999
    await pass(swept)
    expect(context.runs).toHaveLength(2)
    clock += 1
    await pass(swept)
    expect(context.runs).toHaveLength(4)
  })

  it("of queues on one namespace, sweeps with the first's backend", async () => {
    const first = { config: { ...backendConfig("ml-team").config, timeouts: { callBound: "7m" } } }
    await setQueue(queue, first, "open")
    const other = await idOf(`insert into queues (grp, name, description, created_on, last_modified_on) values ('g', 'q2', '', $1, $1) returning id`, [iso(now)])
    await setQueue(other, { config: { ...backendConfig("ml-team").config, timeouts: { callBound: "9m" } } }, "open")
    const backends = await sweptBackends(db)
    expect(backends.map((b) => [b.config.namespace, b.config.timeouts.callBoundMs])).toEqual([["ml-team", 420_000]])
  })

  it("reports a failed sweep and logs it, counts what was deleted and what failed, and says nothing when the service is closing", async () => {
    // The metrics are the process's: what this test adds is compared.
    await setQueue(queue, backendConfig("ml-team"), "open")
    const counted = (name: string) => {
      const line = Effect.runSync(PrometheusMetrics.format())
        .split("\n")
        .find((l) => l.startsWith(`${name}{namespace="ml-team"} `))
      return line === undefined ? 0 : Number(line.split(" ").at(-1))
    }
    const deleted = { namespace: "ml-team", name: "dj-x-s1", uid: "u1", job: "01JD8X2Q4M7N9P3R5S6T8V0W1Y", ageMs: 7_200_000 }
    const cases: ReadonlyArray<readonly [ClusterRun<unknown>, { deleted: number; failures: ReadonlyArray<string> }, ReadonlyArray<string>]> = [
      [
        { kind: "ok", value: { deleted: [deleted], failed: ["TrainingRuntime ml-team/y: delete failed (ServerError): 503"] } },
        { deleted: 1, failures: ["sweeper: namespace ml-team: TrainingRuntime ml-team/y: delete failed (ServerError): 503"] },
        [
          "dispatch sweeper: deleted TrainingRuntime ml-team/dj-x-s1 (uid u1) of job 01JD8X2Q4M7N9P3R5S6T8V0W1Y: no TrainJob owns it, 7200 s old",
          "dispatch sweeper: namespace ml-team: TrainingRuntime ml-team/y: delete failed (ServerError): 503"
        ]
      ],
      [
        { kind: "error", error: new ErrUnreachable({ reasons: ["list failed", "twice"] }) },
        { deleted: 0, failures: ["sweeper: namespace ml-team: ErrUnreachable: list failed; twice"] },
        ["dispatch sweeper: namespace ml-team: ErrUnreachable: list failed; twice"]
      ],
      [{ kind: "abandoned", reason: "closing" }, { deleted: 0, failures: [] }, []]
    ]
    for (const [run, report, log] of cases) {
      const lines: Array<string> = []
      const before = [counted("dispatch_sweeper_deleted_total"), counted("dispatch_sweeper_failures_total")]
      expect(await pass(sweeper(contextOf(run), { graceMs: hour, everyMs: 0 }, (l) => void lines.push(l)))).toEqual(report)
      expect(lines).toEqual(log)
      expect([counted("dispatch_sweeper_deleted_total") - before[0]!, counted("dispatch_sweeper_failures_total") - before[1]!]).toEqual([report.deleted, report.failures.length])
    }
  })
})

describe("clusterCleanup's pace", () => {
  beforeEach(async () => setQueue(queue, null, null))

  it("sweeps a namespace once per everyMs", async () => {
    await setQueue(queue, backendConfig("ml-team"), "open")
    let clock = now
    const context = contextOf({ kind: "ok", value: { deleted: [], failed: [] } }, () => clock)
    const cleanup = clusterCleanup(context, { retentionMs: hour, sweepGraceMs: hour, everyMs: 60_000 }, () => undefined)
    await pass(cleanup)
    await pass(cleanup)
    expect(context.runs).toHaveLength(1)
    clock += 60_000
    await pass(cleanup)
    expect(context.runs).toHaveLength(2)
  })

  it("runs retention once per everyMs, and again at once after a full batch", async () => {
    let clock = now
    const context = contextOf({ kind: "ok", value: {} }, () => clock)
    const cleanup = clusterCleanup(context, { retentionMs: hour, sweepGraceMs: hour, everyMs: 60_000 }, () => undefined)
    const due = async (n: number) => {
      for (let i = 0; i < n; i++) await job("failed", now - 2 * hour, "done", null)
    }
    const left = async () => Number((await db.query<{ n: number }>(`select count(*)::int as n from jobs where cluster_removed_on is null`))[0]?.n)
    await due(retentionBatch + 1)
    await pass(cleanup)
    expect(await left()).toBe(1)
    // A full batch: the next pass takes the rest at once.
    await pass(cleanup)
    expect(await left()).toBe(0)
    await due(1)
    clock += 59_999
    await pass(cleanup)
    expect(await left()).toBe(1)
    clock += 1
    await pass(cleanup)
    expect(await left()).toBe(0)
  })

  it("a database that fails is a problem of the pass, named by the part that met it, never a thrown pass", async () => {
    const failing = await withTap(db, failWhen(() => new Error("connection lost")))
    const context = contextOf({ kind: "ok", value: {} })
    const report = await pass(clusterCleanup(context, { retentionMs: hour, sweepGraceMs: hour, everyMs: 0 }, () => undefined), failing).finally(failing.close)
    expect(report).toEqual({ swept: 0, removed: 0, problems: ["sweeper: connection lost", "retention: connection lost"] })
  })
})
