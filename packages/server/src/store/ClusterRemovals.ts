// What may be removed from the cluster, and what was: retention's due jobs (leased while one process removes their
// TrainJob and runtime copy) and when their removal ended, and the jobs whose runtime copies the sweeper must keep.
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"

/** An ended job whose cluster objects are due for removal. */
export const ExpiredJob = Schema.Struct({
  id: Schema.Number,
  queue: Schema.Number,
  /** The JobID of its StartRequest; null when no claim ever made one (nothing reached the cluster). */
  key: Schema.NullOr(Schema.String)
})

/** The cluster removals' repository over the SqlClient in context. */
export const clusterRemovals = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decode = <S extends Schema.Top>(row: S) => Schema.decodeUnknownEffect(Schema.Array(row))
  return {
    /** Takes up to `limit` jobs that ended at or before `endedBefore` and whose objects are not removed yet, leasing
     * each until `leaseUntil`; jobs never tried, or tried longest ago, first. Rows another transaction holds are
     * skipped. Run it in a transaction: the lease is written under the rows' locks. */
    takeExpired: (nowMs: number, endedBefore: string, leaseUntil: number, limit: number) =>
      Effect.gen(function* () {
        const due = yield* Effect.flatMap(
          sql`select j.id from jobs j
              where j.cluster_removed_on is null and j.dispatch_state = 'done' and j.status in ('finished', 'failed')
                and j.cluster_removal_next_at <= ${nowMs}
                and (select max(h.changed_on) from job_status_history h where h.job = j.id) <= ${endedBefore}::timestamptz
              order by j.cluster_removal_next_at, j.id limit ${limit} for update of j skip locked`,
          decode(Schema.Struct({ id: Schema.Number }))
        )
        if (due.length === 0) return []
        return yield* Effect.flatMap(
          sql`update jobs set cluster_removal_next_at = ${leaseUntil} where id = any(${due.map((row) => row.id)}::int[])
              returning id, queue, start_request->>'job' as key`,
          decode(ExpiredJob)
        )
      }),
    /** Records that a job's cluster objects are gone (or that there is nothing retention may remove, with why). */
    recordRemoved: (id: number, at: string, reason: string | null) =>
      Effect.asVoid(sql`update jobs set cluster_removed_on = ${at}, cluster_removal_reason = ${reason} where id = ${id}`),
    /** Records a failed removal: the job goes to the back of the line. */
    recordRemovalFailed: (id: number, nowMs: number, reason: string) =>
      Effect.asVoid(sql`update jobs set cluster_removal_next_at = ${nowMs}, cluster_removal_reason = ${reason} where id = ${id}`),
    /** The JobIDs of jobs the service may still start or stop (a deleted job never put back on the cluster is not). */
    jobsInProgress: Effect.map(
      Effect.flatMap(
        sql`select distinct start_request->>'job' as job from jobs
            where start_request is not null and dispatch_state <> 'done' and not (deleted and dispatch_state = 'pending')`,
        decode(Schema.Struct({ job: Schema.String }))
      ),
      (rows) => new Set(rows.map((row) => row.job)) as ReadonlySet<string>
    )
  }
})
