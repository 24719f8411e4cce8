// The dispatcher's statements on jobs: which jobs are due for a claim, the claims (leases) themselves and what a
// claim keeps (its StartRequest, the TrainJob it made), the rows status sync and the stop pass follow, and the
// queues' stored backends. The row itself and the guarded write of the machine's answer are the dispatch rows'
// repository (`DispatchRows.ts`). Rows are claimed with FOR UPDATE SKIP LOCKED and a lease, so two service
// processes on one PostgreSQL never hold the same job, and a process that dies mid-dispatch frees its jobs when the
// lease runs out.
import { Effect, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { dispatchColumns, StoredDispatchRow } from "./DispatchRows.ts"

/** A due job's row with the StartRequest an earlier claim made (null before the first). */
export const DueJob = Schema.Struct({ ...StoredDispatchRow.fields, startRequest: Schema.Unknown })

/** The dispatch leases' repository over the SqlClient in context. */
export const dispatchLeases = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(dispatchColumns)
  const rows = SqlSchema.findAll({
    Request: Schema.Void,
    Result: StoredDispatchRow,
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
      Result: StoredDispatchRow,
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
