// How the dispatch machine's state is kept in a job's row, and how one of its answers is written: the state's
// columns, the history entries it records, all under a guard that the row is still in the state it was read in
// (a user's action or another process may have moved it meanwhile; then the answer is dropped).
import { statusOf, type DispatchAnswer, type DispatchState, type JobStatus, type StopEnd } from "@dispatch/jobs"
import type { JobDispatch } from "../wire/ApiSchemas.ts"
import { Effect, Option } from "effect"
import type { SqlClient } from "effect/sql"
import type { Sql } from "../store/Database.ts"
import { runOn } from "../store/DatabaseBridge.ts"
import { dispatchLeases } from "../store/DispatchLeases.ts"
import { jobHistory } from "../store/JobHistory.ts"

/** A job's row as the dispatcher, the status sync and the job controls need it. */
export interface DispatchRow {
  readonly id: number
  readonly group: string
  readonly queue: number
  readonly status: JobStatus
  readonly dispatchState: JobDispatch["state"]
  readonly attempts: number
  readonly nextAttemptAt: number
  readonly landsBy: number | null
  readonly firstAttemptAt: number | null
  readonly faults: ReadonlyArray<string>
  readonly stopEnds: StopEnd | null
  readonly stopTries: number
  readonly reason: string | null
  readonly heldFrom: JobStatus | null
  readonly deleted: boolean
  readonly claimedBy: string | null
  /** The JobID of its StartRequest (submission 1), once a claim made it. */
  readonly key: string | null
}

/** The columns a `DispatchRow` is read from (table `jobs`, unaliased). */
export { dispatchColumns } from "../store/DispatchLeases.ts"

const num = (value: unknown): number => Number(value)
const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value))

/** A row as the driver answers it, its numbers as numbers (PostgreSQL answers float8 and bigint as strings). */
export const dispatchRowOf = (row: DispatchRow): DispatchRow => ({
  ...row,
  attempts: num(row.attempts),
  nextAttemptAt: num(row.nextAttemptAt),
  landsBy: numOrNull(row.landsBy),
  firstAttemptAt: numOrNull(row.firstAttemptAt),
  stopTries: num(row.stopTries),
  faults: row.faults ?? []
})

const heldFrom = (row: DispatchRow): "queued" | "started" => (row.heldFrom === "started" ? "started" : "queued")

/** The machine's state a row holds. */
export const stateOf = (row: DispatchRow): DispatchState => {
  const { attempts, faults } = row
  // A row claimed before the first attempt's time was kept has none: its last retry time stands in for it.
  const firstAt = row.firstAttemptAt ?? row.nextAttemptAt
  switch (row.dispatchState) {
    case "pending":
      return row.status === "deferred"
        ? { kind: "holding", attempts, from: heldFrom(row), onCluster: false, retryAt: row.nextAttemptAt, firstAt: row.firstAttemptAt, faults }
        : { kind: "queued", attempts, retryAt: row.nextAttemptAt, firstAt: row.firstAttemptAt, faults }
    case "claimed":
    case "starting":
    case "owned":
      return { kind: row.dispatchState, attempts, firstAt, faults }
    case "unknown":
      return { kind: "unknown", attempts, landsBy: row.landsBy ?? row.nextAttemptAt, firstAt, faults }
    case "opened":
      return { kind: "running", attempts, status: row.status === "started" ? "started" : "queued" }
    case "held":
      return { kind: "holding", attempts, from: heldFrom(row), onCluster: true, retryAt: 0, firstAt: null, faults: [] }
    case "stopping":
      return { kind: "stopping", attempts, ends: row.stopEnds ?? (row.deleted ? "deleted" : "cancelled"), status: row.status, reason: row.reason ?? "", retryAt: row.nextAttemptAt, tries: row.stopTries }
    case "done":
      return row.deleted ? { kind: "deleted", attempts, status: row.status } : { kind: "done", attempts, status: row.status, reason: row.reason }
  }
}

/** The dispatch state a machine state is stored as (and answered as, in `dispatch.state`). */
export const storedStateOf = (state: DispatchState): JobDispatch["state"] => {
  switch (state.kind) {
    case "queued":
      return "pending"
    case "holding":
      return state.onCluster ? "held" : "pending"
    case "running":
      return "opened"
    case "deleted":
      return "done"
    default:
      return state.kind
  }
}

/** Whether a dispatcher holds a job in this state (its claim kept until the state rests). */
export const isClaimed = (state: DispatchState): boolean => state.kind === "claimed" || state.kind === "starting" || state.kind === "owned"

const lastFault = (faults: ReadonlyArray<string>): string | null => faults[faults.length - 1] ?? null

/** The columns a state is written to, beside its status (written by the record commands). */
const columnsOf = (state: DispatchState): Record<string, unknown> => {
  const base = { dispatch_state: storedStateOf(state), attempts: state.attempts }
  switch (state.kind) {
    case "queued":
      return { ...base, next_attempt_at: state.retryAt, first_attempt_at: state.firstAt, faults: JSON.stringify(state.faults), dispatch_reason: lastFault(state.faults), lands_by: null }
    case "claimed":
    case "starting":
    case "owned":
      return { ...base, first_attempt_at: state.firstAt, faults: JSON.stringify(state.faults) }
    case "unknown":
      return { ...base, next_attempt_at: state.landsBy, lands_by: state.landsBy, first_attempt_at: state.firstAt, faults: JSON.stringify(state.faults), dispatch_reason: lastFault(state.faults) }
    case "running":
      return { ...base, dispatch_reason: null, last_error: null, lands_by: null, held_from: null }
    case "holding":
      return { ...base, held_from: state.from, dispatch_reason: "held", ...(state.onCluster ? {} : { next_attempt_at: state.retryAt }) }
    case "stopping":
      return { ...base, stop_ends: state.ends, next_attempt_at: state.retryAt, stop_tries: state.tries, dispatch_reason: state.reason, deleted: state.ends === "deleted" }
    case "done":
      return { ...base, dispatch_reason: state.reason, lands_by: null }
    case "deleted":
      return { ...base, deleted: true, lands_by: null }
  }
}

/** What else a write sets: the claim (taken or renewed by a holder, released, or kept as it is, as a user's action
 * keeps a dispatcher's claim so that nothing stops a job while its Start runs), the typed error of a failed call,
 * and whether the job's modification time moves without a status change. */
export interface WriteExtras {
  readonly claim?: { readonly holder: string; readonly untilMs: number } | "release" | "keep"
  /** The typed error of the call that failed (`last_error`), or null to clear it. */
  readonly error?: unknown
  readonly modified?: boolean
}

/**
 * Writes an answer of the machine to the row read as `row`, only if the row is still in that state (the same stored
 * state, status and deletion, and the same claim when the row was claimed): the state's columns, its claim, the
 * failed call's typed error, then the history entries it records (stamped `at`). False, writing nothing, when the
 * row moved on meanwhile (a user's action or another process): the answer is then about a state that is gone.
 */
export const writeAnswerEffect = (row: DispatchRow, answer: DispatchAnswer, at: string, extras: WriteExtras = {}): Effect.Effect<boolean, unknown, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const columns: Record<string, unknown> = { ...columnsOf(answer.state), status: statusOf(answer.state) }
    const claim = extras.claim ?? (isClaimed(answer.state) ? "keep" : "release")
    if (claim === "release") Object.assign(columns, { claimed_by: null, claim_until: null })
    else if (claim !== "keep") Object.assign(columns, { claimed_by: claim.holder, claim_until: claim.untilMs })
    if (extras.error !== undefined) columns["last_error"] = extras.error === null ? null : JSON.stringify(extras.error)
    const records = answer.commands.flatMap((c) => (c.type === "record" ? [c] : []))
    if (records.length > 0 || extras.modified === true) columns["last_modified_on"] = at
    const leases = yield* dispatchLeases
    if (!(yield* leases.writeGuarded(row, columns))) return false
    const history = yield* jobHistory
    for (const r of records) yield* history.appendStatus(row.id, r.status, at, r.reason ?? null)
    return true
  })

/** `writeAnswerEffect` on `sql` (the database, or a transaction the caller holds). */
export const writeAnswer = (sql: Sql, row: DispatchRow, answer: DispatchAnswer, at: string, extras: WriteExtras = {}): Promise<boolean> =>
  runOn(sql, writeAnswerEffect(row, answer, at, extras))

/** Reads a job's dispatch row, locked for the rest of the transaction; undefined when there is none. */
export const lockDispatchRow = async (sql: Sql, id: number): Promise<DispatchRow | undefined> =>
  Option.getOrUndefined(await runOn(sql, Effect.flatMap(dispatchLeases, (leases) => leases.lockRow(id))))

/** The row as a write of `state` left it, for the guard of the next write. */
export const rowAfter = (row: DispatchRow, state: DispatchState, claimedBy: string | null): DispatchRow => ({
  ...row,
  dispatchState: storedStateOf(state),
  status: statusOf(state),
  deleted: state.kind === "deleted" || (state.kind === "stopping" && state.ends === "deleted") || row.deleted,
  claimedBy
})
