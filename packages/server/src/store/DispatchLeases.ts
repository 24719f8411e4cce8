// The dispatcher's statements on jobs: which jobs are due for a claim, the claims (leases) themselves, the guarded
// write of a dispatch machine's answer, and the rows status sync and the stop pass follow. Rows are claimed with
// FOR UPDATE SKIP LOCKED and a lease, so two service processes on one PostgreSQL never hold the same job, and a
// process that dies mid-dispatch frees its jobs when the lease runs out.
import { JobStatus } from "@dispatch/jobs"
import { Effect, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { JobDispatch } from "../wire/ApiSchemas.ts"

/** The columns a dispatch row is read from (table `jobs`, unaliased). */
export const dispatchColumns = `id, grp as "group", queue, status, dispatch_state as "dispatchState", attempts, next_attempt_at as "nextAttemptAt",
  lands_by as "landsBy", first_attempt_at as "firstAttemptAt", faults, stop_ends as "stopEnds", stop_tries as "stopTries",
  dispatch_reason as reason, held_from as "heldFrom", deleted, claimed_by as "claimedBy", start_request->>'job' as key`

// PostgreSQL answers bigint (and, through some drivers, float8) as a string.
const Count = Schema.Union([Schema.Number, Schema.NumberFromString])

/** A job's row as the dispatcher, the status sync and the job controls need it, decoded. */
export const DispatchRowSchema = Schema.Struct({
  id: Count,
  group: Schema.String,
  queue: Count,
  status: JobStatus,
  dispatchState: JobDispatch.fields.state,
  attempts: Count,
  nextAttemptAt: Count,
  landsBy: Schema.NullOr(Count),
  firstAttemptAt: Schema.NullOr(Count),
  faults: Schema.Array(Schema.String),
  stopEnds: Schema.NullOr(Schema.Literals(["cancelled", "deleted", "failed"])),
  stopTries: Count,
  reason: Schema.NullOr(Schema.String),
  heldFrom: Schema.NullOr(JobStatus),
  deleted: Schema.Boolean,
  claimedBy: Schema.NullOr(Schema.String),
  /** The JobID of its StartRequest (submission 1), once a claim made it. */
  key: Schema.NullOr(Schema.String)
})

/** A dispatch row as decoded. */
export type StoredDispatchRow = typeof DispatchRowSchema.Type

/** A due job's row with the StartRequest an earlier claim made (null before the first). */
export const DueJob = Schema.Struct({ ...DispatchRowSchema.fields, startRequest: Schema.Unknown })

/** What a guarded write checks: the row is still in the state, status, deletion and claim it was read in. */
export interface RowGuard {
  readonly id: number
  readonly dispatchState: string
  readonly status: string
  readonly deleted: boolean
  readonly claimedBy: string | null
}

// Columns written as JSON.
const jsonColumns: Readonly<Record<string, string>> = { faults: "::jsonb", last_error: "::jsonb" }

/** The dispatch leases' repository over the SqlClient in context. */
export const dispatchLeases = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(dispatchColumns)
  const rows = SqlSchema.findAll({
    Request: Schema.Void,
    Result: DispatchRowSchema,
    execute: () => sql`select ${columns} from jobs where not deleted and dispatch_state = 'opened' order by id`
  })
  return {
    /** Up to `limit` jobs on open queues, oldest first, that may take a claim now: queued ones whose retry time
     * came, unanswered creates whose bound passed, and claims whose lease expired; locked for the transaction
     * the caller runs, skipping rows another transaction holds. */
    dueJobs: SqlSchema.findAll({
      Request: Schema.Struct({ nowMs: Schema.Number, limit: Schema.Number }),
      Result: DueJob,
      execute: ({ nowMs, limit }) =>
        sql`select ${columns}, start_request as "startRequest" from jobs j where not j.deleted and j.status = 'queued'
         and exists (select 1 from queue_gates g where g.queue = j.queue and g.state = 'open')
         and ((j.dispatch_state in ('pending', 'unknown') and j.next_attempt_at <= ${nowMs}) or (j.dispatch_state in ('claimed', 'starting', 'owned') and j.claim_until < ${nowMs}))
       order by j.id limit ${limit} for update of j skip locked`
    }),
    /** Writes `values` (column to value) to the row `guard` names, only if it is still as read; true when written. */
    writeGuarded: (guard: RowGuard, values: Readonly<Record<string, unknown>>) => {
      const names = Object.keys(values)
      const set = names.map((name, i) => `${name} = $${i + 6}${jsonColumns[name] ?? ""}`).join(", ")
      return Effect.map(
        sql.unsafe(
          `update jobs set ${set} where id = $1 and dispatch_state = $2 and status = $3 and deleted = $4 and claimed_by is not distinct from $5 returning id`,
          [guard.id, guard.dispatchState, guard.status, guard.deleted, guard.claimedBy, ...names.map((name) => values[name])]
        ),
        (written) => written.length > 0
      )
    },
    /** A job's dispatch row, locked for the rest of the transaction. */
    lockRow: SqlSchema.findOneOption({ Request: Schema.Number, Result: DispatchRowSchema, execute: (id) => sql`select ${columns} from jobs where id = ${id} for update` }),
    /** Keeps the StartRequest a claim made, unless one is kept already. */
    saveStartRequest: (id: number, request: unknown) => Effect.asVoid(sql`update jobs set start_request = ${JSON.stringify(request)}::jsonb where id = ${id} and start_request is null`),
    /** Records the TrainJob an attempt made or found. */
    saveTrainJob: (id: number, ref: unknown) => Effect.asVoid(sql`update jobs set trainjob = ${JSON.stringify(ref)}::jsonb where id = ${id}`),
    /** Gives a claim back without a state change. */
    releaseClaim: (id: number, holder: string) => Effect.asVoid(sql`update jobs set claimed_by = null, claim_until = null where id = ${id} and claimed_by = ${holder}`),
    /** Every job opened on the cluster, by id. */
    openedJobs: rows(undefined),
    /** Every job whose cluster objects are to be stopped now: due, and held by no dispatcher (deleted ones too). */
    stoppingJobs: SqlSchema.findAll({
      Request: Schema.Number,
      Result: DispatchRowSchema,
      execute: (nowMs) =>
        sql`select ${columns} from jobs where dispatch_state = 'stopping' and next_attempt_at <= ${nowMs} and (claim_until is null or claim_until < ${nowMs}) order by id`
    }),
    /** The stored backend config of queues, by id, whatever their group. */
    queueConfigs: (ids: ReadonlyArray<number>) =>
      ids.length === 0
        ? Effect.succeed(new Map<number, unknown>() as ReadonlyMap<number, unknown>)
        : Effect.map(
            SqlSchema.findAll({
              Request: Schema.Array(Schema.Number),
              Result: Schema.Struct({ id: Schema.Number, backend: Schema.Struct({ config: Schema.Unknown }) }),
              execute: (queues) => sql`select id, backend from queues where id = any(${[...queues]}::int[]) and backend is not null`
            })(ids),
            (found) => new Map(found.map((r) => [r.id, r.backend.config])) as ReadonlyMap<number, unknown>
          ),
    /** Every queue with a backend, by id, and its stored config. */
    queuesWithBackend: Effect.map(
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: Schema.Struct({ id: Schema.Number, backend: Schema.Struct({ config: Schema.Unknown }) }),
        execute: () => sql`select id, backend from queues where backend is not null order by id`
      })(undefined),
      (found) => found.map((r) => ({ id: r.id, config: r.backend.config }))
    ),
    /** Frees every claim a holder of this name has (its lease ends now); answers how many. */
    releaseOwnClaims: (holder: string) =>
      Effect.map(sql`update jobs set claim_until = 0 where claimed_by = ${holder} and claim_until is not null returning id`, (freed) => freed.length)
  }
})

/** The dispatch leases' repository. */
export type DispatchLeases = Effect.Success<typeof dispatchLeases>
