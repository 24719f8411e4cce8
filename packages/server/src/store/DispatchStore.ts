import type { Gate } from "@dispatch/effects"
import { step, type DispatchCommand, type DispatchInput, type DispatchState } from "@dispatch/jobs"
import type { TrainJobRef } from "../wire/ApiSchemas.ts"
import { Option } from "effect"
import type { Database, Sql } from "./Database.ts"
import { onStore } from "./DatabaseBridge.ts"
import { GateRow as GateRowSchema, QueueToProve as QueueToProveSchema, queueGates } from "./QueueGates.ts"
import { dispatchColumns, dispatchRowOf, isClaimed, rowAfter, stateOf, writeAnswer, type DispatchRow } from "../dispatch/DispatchRow.ts"

// Every query the dispatcher sends. Rows are claimed with FOR UPDATE SKIP LOCKED and a lease, so two service
// processes on one PostgreSQL never hold the same job, and a process that dies mid-dispatch frees its jobs
// when the lease runs out.

/** A stored gate's state: what the Factory proved, or `proving` while its probe runs. */
export type GateState = Gate["state"] | "proving"

/** A queue's gate as stored: what its Factory proved (or that it is being proven), and when. */
export type GateRow = typeof GateRowSchema.Type

/** A queue whose backend needs proving: its id and stored backend (as registered). */
export type QueueToProve = typeof QueueToProveSchema.Type

/** Every gate, by queue. */
export const readGates = async (sql: Sql): Promise<ReadonlyMap<number, GateRow>> =>
  new Map((await onStore(sql, queueGates, (gates) => gates.gates)).map((row) => [row.queue, row]))

/** One queue's gate, if its backend has been proven. */
export const readGate = async (sql: Sql, queue: number): Promise<GateRow | undefined> =>
  Option.getOrUndefined(await onStore(sql, queueGates, (gates) => gates.gate(queue)))

/** Queues to prove: every queue when `all`, else those never proven and those not open, proven before `before`. */
export const queuesToProve = (sql: Sql, all: boolean, before: number): Promise<ReadonlyArray<QueueToProve>> =>
  onStore(sql, queueGates, (gates) => gates.queuesToProve(all, before))

/** Stores that a queue's probe runs, unless the queue is open: an open gate stays open until a probe proves otherwise. */
export const markProving = (sql: Sql, queue: number, reason: string, at: string, atMs: number): Promise<void> =>
  onStore(sql, queueGates, (gates) => gates.markProving({ queue, reason, at, atMs }))

/** Stores what a queue's Factory proved. */
export const writeGate = (sql: Sql, queue: number, gate: Gate, at: string, atMs: number): Promise<void> =>
  onStore(sql, queueGates, (gates) => gates.writeGate({ queue, state: gate.state, reason: gate.state === "open" ? "" : gate.reason, at, atMs }))

// Probes of one namespace share their objects' names, so only one process probes a namespace at a time.
/** Takes the probe lease of a namespace until `untilMs`; false when another holder has it. */
export const takeProbeLease = (sql: Sql, namespace: string, holder: string, nowMs: number, untilMs: number): Promise<boolean> =>
  onStore(sql, queueGates, (gates) => gates.takeProbeLease(namespace, holder, nowMs, untilMs))

/** Gives a probe lease back. */
export const releaseProbeLease = (sql: Sql, namespace: string, holder: string): Promise<void> =>
  onStore(sql, queueGates, (gates) => gates.releaseProbeLease(namespace, holder))

/** The service's secret of a name, made from `fresh` the first time any process asks. */
export const serviceSecret = (sql: Sql, name: string, fresh: string): Promise<string> => onStore(sql, queueGates, (gates) => gates.serviceSecret(name, fresh))

/** A job a dispatcher claimed: its row as the claim left it, the machine's state and what it asked for. */
export interface ClaimedJob {
  readonly row: DispatchRow
  readonly state: DispatchState
  readonly commands: ReadonlyArray<DispatchCommand>
  /** The StartRequest, once a claim has made it (it is then reused by every attempt). */
  readonly startRequest: unknown
}

/** Claims up to `limit` jobs on open queues, oldest first, that the machine takes a claim for: queued ones whose
 * retry time came, unanswered creates whose bound passed, and claims whose lease expired (their dispatcher died).
 * Rows another transaction holds are skipped, not waited for. */
export const claimJobs = (db: Database, holder: string, input: DispatchInput, leaseMs: number, limit: number, at: string): Promise<ReadonlyArray<ClaimedJob>> =>
  db.transaction(async (sql) => {
    const rows = await sql.query<DispatchRow & { startRequest: unknown }>(
      `select ${dispatchColumns}, start_request as "startRequest" from jobs j where not j.deleted and j.status = 'queued'
         and exists (select 1 from queue_gates g where g.queue = j.queue and g.state = 'open')
         and ((j.dispatch_state in ('pending', 'unknown') and j.next_attempt_at <= $1) or (j.dispatch_state in ('claimed', 'starting', 'owned') and j.claim_until < $1))
       order by j.id limit $2 for update of j skip locked`,
      [input.nowMs, limit]
    )
    const claimed: Array<ClaimedJob> = []
    for (const found of rows) {
      const row = dispatchRowOf(found)
      const answer = step(stateOf(row), { type: "claim" }, input)
      if (!isClaimed(answer.state)) continue
      if (await writeAnswer(sql, row, answer, at, { claim: { holder, untilMs: input.nowMs + leaseMs } })) {
        claimed.push({ row: rowAfter(row, answer.state, holder), state: answer.state, commands: answer.commands, startRequest: found.startRequest })
      }
    }
    return claimed
  })

/** Keeps the StartRequest a claim made, so every later attempt (in any process) starts the same TrainJob. */
export const saveStartRequest = async (sql: Sql, id: number, request: unknown): Promise<void> => {
  await sql.query(`update jobs set start_request = $2::jsonb where id = $1 and start_request is null`, [id, JSON.stringify(request)])
}

/** Records the TrainJob an attempt made or found. */
export const saveTrainJob = async (sql: Sql, id: number, ref: TrainJobRef): Promise<void> => {
  await sql.query(`update jobs set trainjob = $2::jsonb where id = $1`, [id, JSON.stringify(ref)])
}

/** Gives a claim back without a state change (its answer was dropped: the job moved on meanwhile). */
export const releaseClaim = async (sql: Sql, id: number, holder: string): Promise<void> => {
  await sql.query(`update jobs set claimed_by = null, claim_until = null where id = $1 and claimed_by = $2`, [id, holder])
}

/** Every job opened on the cluster that status sync follows. */
export const openedJobs = async (sql: Sql): Promise<ReadonlyArray<DispatchRow>> =>
  (await sql.query<DispatchRow>(`select ${dispatchColumns} from jobs where not deleted and dispatch_state = 'opened' order by id`)).map(dispatchRowOf)

/** Every job whose cluster objects are to be stopped now: due, and held by no dispatcher (deleted ones too). */
export const stoppingJobs = async (sql: Sql, nowMs: number): Promise<ReadonlyArray<DispatchRow>> =>
  (
    await sql.query<DispatchRow>(
      `select ${dispatchColumns} from jobs where dispatch_state = 'stopping' and next_attempt_at <= $1 and (claim_until is null or claim_until < $1) order by id`,
      [nowMs]
    )
  ).map(dispatchRowOf)

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
