import type { Gate } from "@dispatch/effects"
import type { JobStatus } from "@dispatch/jobs"
import type { JobDispatch, TrainJobRef } from "./ApiSchemas.ts"
import type { Database, Sql } from "./Database.ts"
import { updateJobStatus } from "./JobStore.ts"

// Every query the dispatcher sends. Rows are claimed with FOR UPDATE SKIP LOCKED and a lease, so two service
// processes on one PostgreSQL never hold the same job, and a process that dies mid-dispatch frees its jobs
// when the lease runs out.

/** A stored gate's state: what the Factory proved, or `proving` while its probe runs. */
export type GateState = Gate["state"] | "proving"

/** A queue's gate as stored: what its Factory proved (or that it is being proven), and when. */
export interface GateRow {
  readonly queue: number
  readonly state: GateState
  readonly reason: string
  readonly checkedOn: string
  readonly checkedAt: number
}

/** A queue whose backend needs proving: its id and stored backend (as registered). */
export interface QueueToProve {
  readonly id: number
  readonly backend: { readonly config: unknown }
}

const gateColumns = `queue, state, reason, checked_on as "checkedOn", checked_at as "checkedAt"`

/** Every gate, by queue. */
export const readGates = async (sql: Sql): Promise<ReadonlyMap<number, GateRow>> => {
  const rows = await sql.query<GateRow>(`select ${gateColumns} from queue_gates`)
  return new Map(rows.map((r) => [r.queue, { ...r, checkedAt: Number(r.checkedAt) }]))
}

/** One queue's gate, if its backend has been proven. */
export const readGate = async (sql: Sql, queue: number): Promise<GateRow | undefined> => {
  const [row] = await sql.query<GateRow>(`select ${gateColumns} from queue_gates where queue = $1`, [queue])
  return row === undefined ? undefined : { ...row, checkedAt: Number(row.checkedAt) }
}

/** Queues to prove: every queue when `all`, else those never proven and those not open, proven before `before`. */
export const queuesToProve = (sql: Sql, all: boolean, before: number) =>
  sql.query<QueueToProve>(
    `select q.id, q.backend from queues q left join queue_gates g on g.queue = q.id
     where q.backend is not null and ($1 or g.queue is null or (g.state <> 'open' and g.checked_at <= $2)) order by q.id`,
    [all, before]
  )

/** Stores that a queue's probe runs, unless the queue is open: an open gate stays open until a probe proves otherwise. */
export const markProving = async (sql: Sql, queue: number, reason: string, at: string, atMs: number): Promise<void> => {
  await sql.query(
    `insert into queue_gates (queue, state, reason, checked_on, checked_at) values ($1, 'proving', $2, $3, $4)
     on conflict (queue) do update set state = excluded.state, reason = excluded.reason, checked_on = excluded.checked_on, checked_at = excluded.checked_at
     where queue_gates.state <> 'open'`,
    [queue, reason, at, atMs]
  )
}

/** Stores what a queue's Factory proved. */
export const writeGate = async (sql: Sql, queue: number, gate: Gate, at: string, atMs: number): Promise<void> => {
  await sql.query(
    `insert into queue_gates (queue, state, reason, checked_on, checked_at) values ($1, $2, $3, $4, $5)
     on conflict (queue) do update set state = excluded.state, reason = excluded.reason, checked_on = excluded.checked_on, checked_at = excluded.checked_at`,
    [queue, gate.state, gate.state === "open" ? "" : gate.reason, at, atMs]
  )
}

// Probes of one namespace share their objects' names, so only one process probes a namespace at a time.
/** Takes the probe lease of a namespace until `untilMs`; false when another holder has it. */
export const takeProbeLease = async (sql: Sql, namespace: string, holder: string, nowMs: number, untilMs: number): Promise<boolean> =>
  (
    await sql.query(
      `insert into probe_leases (namespace, holder, until_ms) values ($1, $2, $3)
       on conflict (namespace) do update set holder = excluded.holder, until_ms = excluded.until_ms
       where probe_leases.until_ms < $4 or probe_leases.holder = $2 returning holder`,
      [namespace, holder, untilMs, nowMs]
    )
  ).length > 0

/** Gives a probe lease back. */
export const releaseProbeLease = async (sql: Sql, namespace: string, holder: string): Promise<void> => {
  await sql.query(`delete from probe_leases where namespace = $1 and holder = $2`, [namespace, holder])
}

/** The service's secret of a name, made from `fresh` the first time any process asks. */
export const serviceSecret = async (sql: Sql, name: string, fresh: string): Promise<string> => {
  await sql.query(`insert into service_keys (name, secret) values ($1, $2) on conflict (name) do nothing`, [name, fresh])
  const [row] = await sql.query<{ secret: string }>(`select secret from service_keys where name = $1`, [name])
  return row?.secret ?? fresh
}

/** A job a dispatcher claimed. */
export interface ClaimedJob {
  readonly id: number
  readonly group: string
  /** Claims so far, this one included. */
  readonly attempts: number
  /** The StartRequest, once a claim has made it (it is then reused by every attempt). */
  readonly startRequest: unknown
  readonly trainJob: TrainJobRef | null
}

/** Claims up to `limit` queued jobs, oldest first, on open queues: pending ones that are due, and ones whose
 * claim expired (their dispatcher died). Rows another transaction holds are skipped, not waited for. */
export const claimJobs = (db: Database, holder: string, nowMs: number, leaseMs: number, limit: number): Promise<ReadonlyArray<ClaimedJob>> =>
  db.transaction(async (sql) => {
    const rows = await sql.query<{ id: number }>(
      `select j.id from jobs j join queue_gates g on g.queue = j.queue and g.state = 'open'
       where not j.deleted and j.status = 'queued'
         and ((j.dispatch_state = 'pending' and j.next_attempt_at <= $1) or (j.dispatch_state = 'starting' and j.claim_until < $1))
       order by j.id limit $2 for update of j skip locked`,
      [nowMs, limit]
    )
    if (rows.length === 0) return []
    return sql.query<ClaimedJob>(
      `update jobs set dispatch_state = 'starting', claimed_by = $2, claim_until = $3, attempts = attempts + 1
       where id = any($1::int[])
       returning id, grp as "group", attempts, start_request as "startRequest", trainjob as "trainJob"`,
      [rows.map((r) => r.id), holder, nowMs + leaseMs]
    )
  }).then((claimed) => [...claimed].sort((a, b) => a.id - b.id))

/** Keeps the StartRequest a claim made, so every later attempt (in any process) starts the same TrainJob. */
export const saveStartRequest = async (sql: Sql, id: number, request: unknown): Promise<void> => {
  await sql.query(`update jobs set start_request = $2::jsonb where id = $1 and start_request is null`, [id, JSON.stringify(request)])
}

/** Records the TrainJob Start made (the job stays claimed until it is opened). */
export const saveTrainJob = async (sql: Sql, id: number, ref: TrainJobRef): Promise<void> => {
  await sql.query(`update jobs set trainjob = $2::jsonb where id = $1`, [id, JSON.stringify(ref)])
}

/** Ends a claim with the job opened on the cluster; a job cancelled meanwhile keeps its stopping state. */
export const recordOpened = async (sql: Sql, id: number, holder: string): Promise<void> => {
  await sql.query(
    `update jobs set dispatch_state = case when dispatch_state = 'starting' then 'opened' else dispatch_state end,
       claimed_by = null, claim_until = null, dispatch_reason = null, last_error = null
     where id = $1 and claimed_by = $2`,
    [id, holder]
  )
}

/** Ends a claim with a retry at `nextAtMs`, keeping the reason and the typed error (null when none) for the job's readers. */
export const recordRetry = async (sql: Sql, id: number, holder: string, nextAtMs: number, reason: string, error: unknown): Promise<void> => {
  await sql.query(
    `update jobs set dispatch_state = case when dispatch_state = 'starting' then 'pending' else dispatch_state end,
       claimed_by = null, claim_until = null, next_attempt_at = $3, dispatch_reason = $4, last_error = $5::jsonb
     where id = $1 and claimed_by = $2`,
    [id, holder, nextAtMs, reason, error === null ? null : JSON.stringify(error)]
  )
}

/** Ends a claim by failing the job with the reason and the typed error (null when none); false when the job was
 * cancelled or changed meanwhile. */
export const recordFailed = (db: Database, id: number, holder: string, reason: string, error: unknown, at: string): Promise<boolean> =>
  db.transaction(async (sql) => {
    const rows = await sql.query(
      `update jobs set dispatch_state = 'done', claimed_by = null, claim_until = null, dispatch_reason = $3, last_error = $4::jsonb
       where id = $1 and claimed_by = $2 and dispatch_state = 'starting' and status = 'queued' returning id`,
      [id, holder, reason, error === null ? null : JSON.stringify(error)]
    )
    if (rows.length === 0) return false
    await updateJobStatus(sql, id, "failed", at, reason)
    return true
  })

/** A job on the cluster, as status sync and the job controls need it. */
export interface ActiveJob {
  readonly id: number
  readonly group: string
  readonly queue: number
  readonly status: JobStatus
  readonly dispatchState: JobDispatch["state"]
  /** The JobID of its StartRequest (submission 1). */
  readonly key: string | null
  readonly heldFrom: JobStatus | null
}

const activeColumns = `id, grp as "group", queue, status, dispatch_state as "dispatchState", start_request->>'job' as key, held_from as "heldFrom"`

/** Every job opened on the cluster that status sync follows. */
export const openedJobs = (sql: Sql) =>
  sql.query<ActiveJob>(`select ${activeColumns} from jobs where not deleted and dispatch_state = 'opened' order by id`)

/** Every cancelled job whose TrainJob still has to be stopped, once no dispatcher holds it. */
export const stoppingJobs = (sql: Sql, nowMs: number) =>
  sql.query<ActiveJob>(
    `select ${activeColumns} from jobs where dispatch_state = 'stopping' and (claim_until is null or claim_until < $1) order by id`,
    [nowMs]
  )

/** Reads one job's dispatch row, locked for the rest of the transaction. */
export const lockActiveJob = async (sql: Sql, id: number): Promise<ActiveJob | undefined> =>
  (await sql.query<ActiveJob>(`select ${activeColumns} from jobs where id = $1 for update`, [id]))[0]

/** Sets a job's dispatch state (and clears or keeps the reason). */
export const setDispatchState = async (sql: Sql, id: number, state: JobDispatch["state"], reason: string | null, heldFrom: JobStatus | null = null): Promise<void> => {
  await sql.query(`update jobs set dispatch_state = $2, dispatch_reason = $3, held_from = $4 where id = $1`, [id, state, reason, heldFrom])
}

/** The stored backend config of queues, by id, whatever their group (the dispatcher serves every group). */
export const queueConfigs = async (sql: Sql, ids: ReadonlyArray<number>): Promise<ReadonlyMap<number, unknown>> => {
  if (ids.length === 0) return new Map()
  const rows = await sql.query<{ id: number; backend: { config: unknown } }>(`select id, backend from queues where id = any($1::int[]) and backend is not null`, [[...ids]])
  return new Map(rows.map((r) => [r.id, r.backend.config]))
}

/** Frees the claims a process of this name held before it restarted, so they are taken over at once rather than
 * when their lease ends; returns how many. */
export const releaseOwnClaims = async (sql: Sql, holder: string): Promise<number> =>
  (await sql.query(`update jobs set claim_until = 0 where claimed_by = $1 and claim_until is not null returning id`, [holder])).length
