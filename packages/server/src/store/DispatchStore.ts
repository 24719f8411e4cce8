import type { Gate } from "@dispatch/effects"
import type { DispatchAnswer } from "@dispatch/jobs"
import type { TrainJobRef } from "../wire/ApiSchemas.ts"
import { Effect, Option } from "effect"
import type { SqlClient } from "effect/sql"
import type { Database, Sql } from "./Database.ts"
import { onStore, runOn } from "./DatabaseBridge.ts"
import { dispatchLeases, type DispatchLeases } from "./DispatchLeases.ts"
import { GateRow as GateRowSchema, QueueToProve as QueueToProveSchema, queueGates } from "./QueueGates.ts"
import { dispatchRows, type DispatchRow, type WriteExtras } from "./DispatchRows.ts"

// The dispatcher's statements as Promise code takes them: each a thin call of a repository (`QueueGates`,
// `DispatchLeases`, `DispatchRows`) on the database or one of its transactions. The dispatcher's Effects cross
// into the Promise `Database` here too (`onDatabase`, `inTransaction`, `fromStore`).

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

/** A repository's Effect run on `sql` (the database, or a transaction the caller holds) from Effect code: it fails
 * with what the statement threw, as the Promise callers see it. The crossing is the bridge's, once. */
export const onDatabase = <A>(sql: Sql, effect: Effect.Effect<A, unknown, SqlClient.SqlClient>): Effect.Effect<A, unknown> =>
  Effect.tryPromise({ try: () => runOn(sql, effect), catch: (cause) => cause })

/** A repository's Effect run in a transaction of its own on `db`: committed when it succeeds, rolled back when it fails. */
export const inTransaction = <A>(db: Database, effect: Effect.Effect<A, unknown, SqlClient.SqlClient>): Effect.Effect<A, unknown> =>
  Effect.tryPromise({ try: () => db.transaction((sql) => runOn(sql, effect)), catch: (cause) => cause })

/** A Promise step of the store (a repository not yet converted) from Effect code: it fails with what it threw. */
export const fromStore = <A>(run: () => Promise<A>): Effect.Effect<A, unknown> => Effect.tryPromise({ try: run, catch: (cause) => cause })

const onLeases = <A>(sql: Sql, use: (leases: DispatchLeases) => Effect.Effect<A, unknown, SqlClient.SqlClient>): Promise<A> => onStore(sql, dispatchLeases, use)

/** Keeps the StartRequest a claim made, so every later attempt (in any process) starts the same TrainJob. */
export const saveStartRequest = (sql: Sql, id: number, request: unknown): Promise<void> => onLeases(sql, (leases) => leases.saveStartRequest(id, request))

/** Records the TrainJob an attempt made or found. */
export const saveTrainJob = (sql: Sql, id: number, ref: TrainJobRef): Promise<void> => onLeases(sql, (leases) => leases.saveTrainJob(id, ref))

/** Gives a claim back without a state change (its answer was dropped: the job moved on meanwhile). */
export const releaseClaim = (sql: Sql, id: number, holder: string): Promise<void> => onLeases(sql, (leases) => leases.releaseClaim(id, holder))

/** Every job opened on the cluster that status sync follows. */
export const openedJobs = (sql: Sql): Promise<ReadonlyArray<DispatchRow>> => onLeases(sql, (leases) => leases.openedJobs)

/** Every job whose cluster objects are to be stopped now: due, and held by no dispatcher (deleted ones too). */
export const stoppingJobs = (sql: Sql, nowMs: number): Promise<ReadonlyArray<DispatchRow>> => onLeases(sql, (leases) => leases.stoppingJobs(nowMs))

/** The stored backend config of queues, by id, whatever their group (the dispatcher serves every group). */
export const queueConfigs = (sql: Sql, ids: ReadonlyArray<number>): Promise<ReadonlyMap<number, unknown>> => onLeases(sql, (leases) => leases.queueConfigs(ids))

/** Every queue with a backend, by id, and its stored config. */
export const queuesWithBackend = (sql: Sql): Promise<ReadonlyArray<{ readonly id: number; readonly config: unknown }>> => onLeases(sql, (leases) => leases.queuesWithBackend)

/** Frees the claims a process of this name holds (or held before it restarted), so they are taken over at once
 * rather than when their lease ends; returns how many. */
export const releaseOwnClaims = (sql: Sql, holder: string): Promise<number> => onLeases(sql, (leases) => leases.releaseOwnClaims(holder))

/** The dispatch rows' `writeAnswer` on `sql` (the database, or a transaction the caller holds). */
export const writeAnswer = (sql: Sql, row: DispatchRow, answer: DispatchAnswer, at: string, extras: WriteExtras = {}): Promise<boolean> =>
  onStore(sql, dispatchRows, (rows) => rows.writeAnswer(row, answer, at, extras))

/** Reads a job's dispatch row, locked for the rest of the transaction; undefined when there is none. */
export const lockDispatchRow = async (sql: Sql, id: number): Promise<DispatchRow | undefined> =>
  Option.getOrUndefined(await onStore(sql, dispatchRows, (rows) => rows.lock(id)))
