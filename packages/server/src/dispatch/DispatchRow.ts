// The dispatch machine's state in a job's row: the state a row holds and the row a write leaves. Pure: the row's
// schema, columns, reads and the guarded write of an answer are the dispatch rows' repository (store/DispatchRows.ts).
import { statusOf, type DispatchState } from "@dispatch/jobs"
import { storedStateOf, type DispatchRow } from "../store/DispatchRows.ts"

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

/** The row as a write of `state` left it, for the guard of the next write. */
export const rowAfter = (row: DispatchRow, state: DispatchState, claimedBy: string | null): DispatchRow => ({
  ...row,
  dispatchState: storedStateOf(state),
  status: statusOf(state),
  deleted: state.kind === "deleted" || (state.kind === "stopping" && state.ends === "deleted") || row.deleted,
  claimedBy
})
