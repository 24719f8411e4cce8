// Retention: once a job has ended (finished, failed or cancelled, its dispatch done) for longer than the retention,
// its TrainJob and runtime copy are deleted from the cluster with Stop, as Kubernetes' ttlSecondsAfterFinished
// does for a Job. The job itself, its status history, logs and metrics stay in the service. Everything is in the
// database: which jobs are due, a lease while one process removes them, and when they were removed, so restarts
// and replicas honour it alike.
import { stop } from "@dispatch/effects"
import { Effect, Result } from "effect"
import { clusterRemovals, ExpiredJob as ExpiredJobSchema } from "../store/ClusterRemovals.ts"
import { SqlClient } from "effect/sql"
import { queueBackendsEffect, type DispatchContext, type QueueBackends } from "./DispatchContext.ts"

/** An ended job whose cluster objects are due for removal. */
export type ExpiredJob = typeof ExpiredJobSchema.Type

/**
 * Takes up to `limit` jobs that ended at or before `endedBefore` (their last status written then) and whose objects
 * are not removed yet, leasing each until `nowMs + leaseMs` so no other process takes it meanwhile. Jobs never tried,
 * or tried longest ago, come first, so a job that keeps failing never holds the others up.
 */
export const takeExpiredJobs = (nowMs: number, endedBefore: string, leaseMs: number, limit: number): Effect.Effect<ReadonlyArray<ExpiredJob>, unknown, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const removals = yield* clusterRemovals
    const taken = yield* sql.withTransaction(removals.takeExpired(nowMs, endedBefore, nowMs + leaseMs, limit))
    return [...taken].sort((a, b) => a.id - b.id)
  })

/** What one retention pass did: jobs whose objects it removed, and one line per job it could not finish. */
export interface RetentionReport {
  /** Jobs taken this pass. */
  readonly taken: number
  readonly removed: number
  readonly failures: ReadonlyArray<string>
}

/** How a removal ended for one job. */
type Removal = { readonly kind: "removed"; readonly reason: string | null } | { readonly kind: "retry"; readonly reason: string } | { readonly kind: "abandoned" }

const removeOne = (context: DispatchContext, job: ExpiredJob, backendOfQueue: QueueBackends): Effect.Effect<Removal> =>
  Effect.gen(function* () {
    if (job.key === null) return { kind: "removed", reason: "it never reached the cluster" } as const
    const backend = backendOfQueue(job.queue)
    if (Result.isFailure(backend)) return { kind: "retry", reason: `queue ${job.queue}'s backend: ${backend.failure.join("; ")}` } as const
    const stopped = yield* context.cluster.run(stop(backend.success, { job: job.key, submission: 1 }))
    if (stopped.kind === "abandoned") return { kind: "abandoned" } as const
    if (stopped.kind === "ok") {
      // Stop deleted what was there; what remains is being deleted (garbage collection, a finalizer): looked at again.
      return stopped.value.gone ? ({ kind: "removed", reason: null } as const) : ({ kind: "retry", reason: `still on the cluster: ${stopped.value.remaining.join(", ")}` } as const)
    }
    const error = stopped.error
    // A TrainJob of the job's name that dispatch did not make (or a key that names none) is not retention's to remove.
    if (error._tag === "ErrRejected" || error._tag === "ErrInvalid") return { kind: "removed", reason: `not removed: ${error._tag}: ${error.reasons.join("; ")}` } as const
    return { kind: "retry", reason: `${error._tag}: ${error.reasons.join("; ")}` } as const
  })

/** Removes the cluster objects of up to `limit` jobs that ended more than `retentionMs` ago (service clock). */
export const retentionPassEffect = (context: DispatchContext, retentionMs: number, limit: number, log: (line: string) => void): Effect.Effect<RetentionReport, unknown, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const nowMs = context.clock()
    const jobs = yield* takeExpiredJobs(nowMs, new Date(nowMs - retentionMs).toISOString(), context.leaseMs, limit)
    if (jobs.length === 0) return { taken: 0, removed: 0, failures: [] }
    const removals = yield* clusterRemovals
    const backendOfQueue = yield* queueBackendsEffect(jobs.map((j) => j.queue))
    const failures: Array<string> = []
    let removed = 0
    for (const job of jobs) {
      const removal = yield* removeOne(context, job, backendOfQueue)
      if (removal.kind === "abandoned") {
        // The service is closing: the lease is given back, so the next process takes the job at once.
        yield* removals.recordRemovalFailed(job.id, nowMs, "interrupted: the service closed")
      } else if (removal.kind === "removed") {
        yield* removals.recordRemoved(job.id, context.now(), removal.reason)
        if (removal.reason === null) {
          log(`dispatch retention: removed the TrainJob and runtime copy of job ${job.id} (JobID ${String(job.key)}) from the cluster`)
          removed++
        }
      } else {
        yield* removals.recordRemovalFailed(job.id, context.clock(), removal.reason)
        log(`dispatch retention: job ${job.id}: not removed yet: ${removal.reason}`)
        failures.push(`retention: job ${job.id}: ${removal.reason}`)
      }
    }
    return { taken: jobs.length, removed, failures }
  })
