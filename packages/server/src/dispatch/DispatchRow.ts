// The dispatch machine's state in a job's row: the state a row holds and the row a write leaves. The row's columns,
// its reads and the guarded write of an answer are the dispatch rows' repository (store/DispatchRows.ts); the
// Promise forms here run it for the dispatcher's Promise code.
import { statusOf, type DispatchAnswer, type DispatchState } from "@dispatch/jobs"
import { Option } from "effect"
import type { Sql } from "../store/Database.ts"
import { onStore } from "../store/DatabaseBridge.ts"
import { dispatchRows, storedStateOf, type DispatchRow, type WriteExtras } from "../store/DispatchRows.ts"

/** A job's row as the dispatcher, the status sync and the job controls need it (its SQL is in the store). */
export { dispatchColumns, isClaimed, storedStateOf, type DispatchRow, type WriteExtras } from "../store/DispatchRows.ts"

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

/**
 * Writes an answer of the machine to the row read as `row`, only if the row is still in that state; false, writing
 * nothing, when the row moved on meanwhile (see the dispatch rows' repository, `store/DispatchRows.ts`).
 */
export const writeAnswer = (sql: Sql, row: DispatchRow, answer: DispatchAnswer, at: string, extras: WriteExtras = {}): Promise<boolean> =>
  onStore(sql, dispatchRows, (rows) => rows.writeAnswer(row, answer, at, extras))

/** Reads a job's dispatch row, locked for the rest of the transaction; undefined when there is none. */
export const lockDispatchRow = async (sql: Sql, id: number): Promise<DispatchRow | undefined> =>
  Option.getOrUndefined(await onStore(sql, dispatchRows, (rows) => rows.lock(id)))

/** The row as a write of `state` left it, for the guard of the next write. */
export const rowAfter = (row: DispatchRow, state: DispatchState, claimedBy: string | null): DispatchRow => ({
  ...row,
  dispatchState: storedStateOf(state),
  status: statusOf(state),
  deleted: state.kind === "deleted" || (state.kind === "stopping" && state.ends === "deleted") || row.deleted,
  claimedBy
})
