// The dispatcher's statements as the tests call them from Promise code: each a repository's Effect (QueueGates,
// DispatchLeases, DispatchRows) run on a test's database.
import type { Gate } from "@dispatch/effects"
import type { DispatchAnswer, DispatchInput } from "@dispatch/jobs"
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { claimJobsEffect } from "../src/dispatch/Claims.ts"
import { readGate as readGateEffect, readGates as readGatesEffect, storeGate } from "../src/dispatch/DispatchContext.ts"
import { dispatchLeases, type DispatchLeases } from "../src/store/DispatchLeases.ts"
import { dispatchRows, type DispatchRow, type WriteExtras } from "../src/store/DispatchRows.ts"
import { queueGates, type QueueGates } from "../src/store/QueueGates.ts"
import type { TestDatabase } from "./TestDatabase.ts"

const onGates = <A>(db: TestDatabase, use: (gates: QueueGates) => Effect.Effect<A, unknown, SqlClient.SqlClient>) => db.run(Effect.flatMap(queueGates, use))
const onLeases = <A>(db: TestDatabase, use: (leases: DispatchLeases) => Effect.Effect<A, unknown, SqlClient.SqlClient>) => db.run(Effect.flatMap(dispatchLeases, use))
const inTransaction = <A>(db: TestDatabase, effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) =>
  db.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(effect)))

export const readGates = (db: TestDatabase) => db.run(readGatesEffect)
export const readGate = (db: TestDatabase, queue: number) => db.run(readGateEffect(queue))
export const writeGate = (db: TestDatabase, queue: number, gate: Gate, at: string, atMs: number) => db.run(storeGate(queue, gate, at, atMs))
export const markProving = (db: TestDatabase, queue: number, reason: string, at: string, atMs: number) => onGates(db, (gates) => gates.markProving({ queue, reason, at, atMs }))
export const queuesToProve = (db: TestDatabase, all: boolean, before: number) => onGates(db, (gates) => gates.queuesToProve(all, before))
export const takeProbeLease = (db: TestDatabase, namespace: string, holder: string, nowMs: number, untilMs: number) =>
  onGates(db, (gates) => gates.takeProbeLease(namespace, holder, nowMs, untilMs))
export const releaseProbeLease = (db: TestDatabase, namespace: string, holder: string) => onGates(db, (gates) => gates.releaseProbeLease(namespace, holder))
export const serviceSecret = (db: TestDatabase, name: string, fresh: string) => onGates(db, (gates) => gates.serviceSecret(name, fresh))
export const saveStartRequest = (db: TestDatabase, id: number, request: unknown) => onLeases(db, (leases) => leases.saveStartRequest(id, request))
export const saveTrainJob = (db: TestDatabase, id: number, ref: unknown) => onLeases(db, (leases) => leases.saveTrainJob(id, ref))
export const releaseClaim = (db: TestDatabase, id: number, holder: string) => onLeases(db, (leases) => leases.releaseClaim(id, holder))
export const openedJobs = (db: TestDatabase) => onLeases(db, (leases) => leases.openedJobs)
export const stoppingJobs = (db: TestDatabase, nowMs: number) => onLeases(db, (leases) => leases.stoppingJobs(nowMs))
export const queueConfigs = (db: TestDatabase, ids: ReadonlyArray<number>) => onLeases(db, (leases) => leases.queueConfigs(ids))
export const releaseOwnClaims = (db: TestDatabase, holder: string) => onLeases(db, (leases) => leases.releaseOwnClaims(holder))
/** Claims due jobs in a transaction of their own. */
export const claimJobs = (db: TestDatabase, holder: string, input: DispatchInput, leaseMs: number, limit: number, at: string) =>
  inTransaction(db, claimJobsEffect(holder, input, leaseMs, limit, at))
/** Reads a job's dispatch row, locked, in a transaction of its own; undefined when there is none. */
export const lockDispatchRow = (db: TestDatabase, id: number): Promise<DispatchRow | undefined> =>
  inTransaction(db, Effect.flatMap(dispatchRows, (rows) => Effect.map(rows.lock(id), Option.getOrUndefined)))
/** The dispatch rows' `writeAnswer`, in a transaction of its own. */
export const writeAnswer = (db: TestDatabase, row: DispatchRow, answer: DispatchAnswer, at: string, extras: WriteExtras = {}): Promise<boolean> =>
  inTransaction(db, Effect.flatMap(dispatchRows, (rows) => rows.writeAnswer(row, answer, at, extras)))
