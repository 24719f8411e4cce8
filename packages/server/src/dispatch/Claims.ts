// A dispatcher's claims: the due jobs the machine takes a claim for, each written with its lease under the row's
// lock. The statements are the store's (`DispatchLeases` picks the due rows, `DispatchRows` writes the answer);
// which row is claimed is the machine's decision, made here.
import { step, type DispatchCommand, type DispatchInput, type DispatchState } from "@dispatch/jobs"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { dispatchLeases } from "../store/DispatchLeases.ts"
import { dispatchRows, isClaimed, type DispatchRow } from "../store/DispatchRows.ts"
import { rowAfter, stateOf } from "./DispatchRow.ts"

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
 * Rows another transaction holds are skipped, not waited for. Run it in a transaction: the claims are written under
 * the rows' locks. */
export const claimJobsEffect = (holder: string, input: DispatchInput, leaseMs: number, limit: number, at: string): Effect.Effect<ReadonlyArray<ClaimedJob>, unknown, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const leases = yield* dispatchLeases
    const rows = yield* dispatchRows
    const due = yield* leases.dueJobs({ nowMs: input.nowMs, limit })
    const claimed: Array<ClaimedJob> = []
    for (const { startRequest, ...row } of due) {
      const answer = step(stateOf(row), { type: "claim" }, input)
      if (!isClaimed(answer.state)) continue
      if (yield* rows.writeAnswer(row, answer, at, { claim: { holder, untilMs: input.nowMs + leaseMs } })) {
        claimed.push({ row: rowAfter(row, answer.state, holder), state: answer.state, commands: answer.commands, startRequest })
      }
    }
    return claimed
  })
