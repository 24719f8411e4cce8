// How the dispatch machine's state is kept in a job's row: the state's columns, a row read (and locked) in that
// form, and an answer of the machine written under a guard that the row is still in the state it was read in (a
// user's action or another process may have moved it meanwhile; then the answer is dropped).
import { JobStatus, statusOf, type DispatchAnswer, type DispatchState } from "@dispatch/jobs"
import { Effect, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { JobDispatch } from "../wire/ApiSchemas.ts"
import { jobHistory } from "./JobHistory.ts"

/** A finite number as a driver may answer it: PostgreSQL's float8 and bigint can come back as text. */
export const StoredNumber = Schema.Union([Schema.Finite, Schema.FiniteFromString])

/** A job's row as the dispatcher, the status sync and the job controls need it. */
export const DispatchRow = Schema.Struct({
  id: Schema.Number,
  group: Schema.String,
  queue: Schema.Number,
  status: JobStatus,
  dispatchState: JobDispatch.fields.state,
  attempts: Schema.Number,
  nextAttemptAt: Schema.Number,
  landsBy: Schema.NullOr(Schema.Number),
  firstAttemptAt: Schema.NullOr(Schema.Number),
  faults: Schema.Array(Schema.String),
  stopEnds: Schema.NullOr(Schema.Literals(["cancelled", "deleted", "failed"])),
  stopTries: Schema.Number,
  reason: Schema.NullOr(Schema.String),
  heldFrom: Schema.NullOr(JobStatus),
  deleted: Schema.Boolean,
  claimedBy: Schema.NullOr(Schema.String),
  /** The JobID of its StartRequest (submission 1), once a claim made it. */
  key: Schema.NullOr(Schema.String)
})
/** A job's row as the dispatcher, the status sync and the job controls need it. */
export type DispatchRow = typeof DispatchRow.Type

/** A dispatch row as the driver answers it (numbers maybe as text), decoded to a `DispatchRow`. */
export const StoredDispatchRow = Schema.Struct({
  ...DispatchRow.fields,
  attempts: StoredNumber,
  nextAttemptAt: StoredNumber,
  landsBy: Schema.NullOr(StoredNumber),
  firstAttemptAt: Schema.NullOr(StoredNumber),
  stopTries: StoredNumber
})

/** The columns a `DispatchRow` is read from (table `jobs`, unaliased). */
export const dispatchColumns = `id, grp as "group", queue, status, dispatch_state as "dispatchState", attempts, next_attempt_at as "nextAttemptAt",
  lands_by as "landsBy", first_attempt_at as "firstAttemptAt", faults, stop_ends as "stopEnds", stop_tries as "stopTries",
  dispatch_reason as reason, held_from as "heldFrom", deleted, claimed_by as "claimedBy", start_request->>'job' as key`

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

// Columns whose values are written as JSON text.
const jsonColumns: ReadonlySet<string> = new Set(["faults", "last_error"])

/** The dispatch rows' repository over the SqlClient in context. */
export const dispatchRows = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const history = yield* jobHistory
  const columns = sql.literal(dispatchColumns)
  const live = SqlSchema.findOneOption({
    Request: Schema.Struct({ id: Schema.Number, group: Schema.String }),
    Result: StoredDispatchRow,
    execute: ({ id, group }) => sql`select ${columns} from jobs where id = ${id} and grp = ${group} and not deleted`
  })
  const byId = SqlSchema.findOneOption({ Request: Schema.Number, Result: StoredDispatchRow, execute: (id) => sql`select ${columns} from jobs where id = ${id}` })
  const locked = SqlSchema.findOneOption({ Request: Schema.Number, Result: StoredDispatchRow, execute: (id) => sql`select ${columns} from jobs where id = ${id} for update` })
  return {
    /** The dispatch row of a job of `group` that is not deleted. */
    live: (group: string, id: number) => live({ id, group }),
    /** The dispatch row of a job, deleted or not. */
    read: byId,
    /** The dispatch row of a job, locked for the rest of the transaction. */
    lock: locked,
    /**
     * Writes an answer of the machine to the row read as `row`, only if the row is still in that state (the same
     * stored state, status and deletion, and the same claim when the row was claimed): the state's columns, its
     * claim, the failed call's typed error, then the history entries it records (stamped `at`). False, writing
     * nothing, when the row moved on meanwhile (a user's action or another process): the answer is then about a
     * state that is gone.
     */
    writeAnswer: (row: DispatchRow, answer: DispatchAnswer, at: string, extras: WriteExtras = {}) =>
      Effect.gen(function* () {
        const set: Record<string, unknown> = { ...columnsOf(answer.state), status: statusOf(answer.state) }
        const claim = extras.claim ?? (isClaimed(answer.state) ? "keep" : "release")
        if (claim === "release") Object.assign(set, { claimed_by: null, claim_until: null })
        else if (claim !== "keep") Object.assign(set, { claimed_by: claim.holder, claim_until: claim.untilMs })
        if (extras.error !== undefined) set["last_error"] = extras.error === null ? null : JSON.stringify(extras.error)
        const records = answer.commands.flatMap((c) => (c.type === "record" ? [c] : []))
        if (records.length > 0 || extras.modified === true) set["last_modified_on"] = at
        const assignments = sql.csv(
          Object.entries(set).map(([name, value]) => (jsonColumns.has(name) ? sql`${sql.literal(name)} = ${value}::jsonb` : sql`${sql.literal(name)} = ${value}`))
        )
        const written = yield* sql`update jobs set ${assignments} where id = ${row.id} and dispatch_state = ${row.dispatchState} and status = ${row.status}
          and deleted = ${row.deleted} and claimed_by is not distinct from ${row.claimedBy} returning id`
        if (written.length === 0) return false
        yield* Effect.forEach(records, (r) => history.appendStatus(row.id, r.status, at, r.reason ?? null), { discard: true })
        return true
      })
  }
})

/** The dispatch rows' repository. */
export type DispatchRows = Effect.Success<typeof dispatchRows>
