import { findMany, InFlight, makeInFlight, stop, type FoundJob } from "@dispatch/effects"
import { step, type DispatchAnswer, type DispatchEvent } from "@dispatch/jobs"
import { Context, Effect, Layer, Result } from "effect"
import { SqlClient } from "effect/sql"
import { machineInput, queueBackendsEffect, type DispatchContext, type QueueBackends } from "./DispatchContext.ts"
import { stateOf } from "./DispatchRow.ts"
import { dispatchRows, type DispatchRow } from "../store/DispatchRows.ts"
import { dispatchLeases } from "../store/DispatchLeases.ts"
import { faultOf } from "./Retries.ts"
import { problemOf } from "./JobDispatch.ts"

/** Find's answer about a followed job as the machine's event, with the reason the job keeps when it ends. */
export const foundEvent = (found: FoundJob): DispatchEvent => {
  const where = `${found.ref.namespace}/${found.ref.name}`
  switch (found.state) {
    case "Absent":
      return { type: "found", found: "Absent", reason: `the TrainJob ${where} no longer exists` }
    case "Stopping":
      return { type: "found", found: "Stopping", reason: `the TrainJob ${where} is being deleted` }
    case "Failed":
      return { type: "found", found: "Failed", reason: `${found.reason}: ${found.message}` }
    case "Succeeded":
      return { type: "found", found: "Succeeded", reason: found.reason }
    case "InFlight":
      return { type: "found", found: "InFlight", untilMs: found.untilMs }
    default:
      return { type: "found", found: found.state }
  }
}

/** Feeds one answer about a job to the machine and writes what it answers, unless the job moved meanwhile. */
const feed = (context: DispatchContext, row: DispatchRow, event: DispatchEvent): Effect.Effect<DispatchAnswer | undefined, unknown, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const state = stateOf(row)
    const answer = step(state, event, machineInput(context))
    // The machine answers an event that changes nothing with the very state it was given: nothing to write.
    if (answer.commands.length === 0 && answer.state === state) return answer
    const at = context.now()
    const sql = yield* SqlClient.SqlClient
    return (yield* sql.withTransaction(Effect.flatMap(dispatchRows, (rows) => rows.writeAnswer(row, answer, at)))) ? answer : undefined
  })

const byQueue = (jobs: ReadonlyArray<DispatchRow>): ReadonlyMap<number, ReadonlyArray<DispatchRow>> => {
  const groups = new Map<number, Array<DispatchRow>>()
  for (const job of jobs) groups.set(job.queue, [...(groups.get(job.queue) ?? []), job])
  return groups
}

/** Follows every opened job: one Find for all of a queue's jobs (one labelled list), each answer fed to the
 * machine. A queue whose Find fails is left for the next pass. */
export const syncPassEffect = (context: DispatchContext): Effect.Effect<SyncReport, unknown, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const problems: Array<string> = []
    const jobs = (yield* Effect.flatMap(dispatchLeases, (leases) => leases.openedJobs)).filter((j) => j.key !== null)
    const groups = byQueue(jobs)
    const backendOfQueue = yield* queueBackendsEffect(groups.keys())
    for (const [queue, members] of groups) {
      const backend = backendOfQueue(queue)
      if (Result.isFailure(backend)) continue
      // An opened job's create is known to have landed: the shared memory of unanswered creates (a database read and
      // write per job) has nothing to say about it, so its Find runs on a memory of its own.
      const keys = members.map((j) => ({ job: j.key ?? "", submission: 1 }))
      const found = yield* context.cluster.run(Effect.provideService(findMany(backend.success, keys), InFlight, makeInFlight()))
      // Left for the next pass, and said: a Find the cluster refuses (a permission missing) would otherwise go unseen.
      if (found.kind === "error") problems.push(`status sync: queue ${queue}: ${found.error.reasons.join("; ")}`)
      if (found.kind !== "ok") continue
      for (const [i, job] of members.entries()) {
        const status = found.value[i]
        if (status !== undefined) yield* Effect.catch(feed(context, job, foundEvent(status)), (cause) => Effect.sync(() => void problems.push(problemOf(job.id, cause))))
      }
    }
    return { followed: jobs.length, problems }
  })

/** What Stop did, as the machine's event: nothing left, something still going, or a fault. */
const stopOf = (context: DispatchContext, job: DispatchRow, backendOfQueue: QueueBackends): Effect.Effect<DispatchEvent | undefined> =>
  Effect.gen(function* () {
    // No StartRequest was ever made: nothing of the job can be on the cluster.
    if (job.key === null) return { type: "stopped", gone: true } as const
    const backend = backendOfQueue(job.queue)
    if (Result.isFailure(backend)) return { type: "stopFailed", fault: { verdict: "refused", reason: `the queue's config does not decode: ${backend.failure.join("; ")}` } } as const
    const result = yield* context.cluster.run(stop(backend.success, { job: job.key, submission: 1 }))
    if (result.kind === "abandoned") return undefined
    if (result.kind === "ok") return { type: "stopped", gone: result.value.gone } as const
    return { type: "stopFailed", fault: faultOf(result.error, context.clock(), backend.success.config.timeouts.callBoundMs) } as const
  })

/** Stops every job the machine has stopping, that is due and no dispatcher holds; one whose Stop is not done yet
 * (its create may still land, something is still going, the cluster is unreachable) comes back at the time the
 * machine says. Answers how many stops are done. */
export const stopPassEffect = (context: DispatchContext): Effect.Effect<number, unknown, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const jobs = yield* Effect.flatMap(dispatchLeases, (leases) => leases.stoppingJobs(context.clock()))
    const backendOfQueue = yield* queueBackendsEffect(jobs.map((j) => j.queue))
    let stopped = 0
    for (const job of jobs) {
      const event = yield* stopOf(context, job, backendOfQueue)
      if (event === undefined) continue
      const answer = yield* feed(context, job, event)
      if (answer !== undefined && answer.state.kind !== "stopping") stopped++
    }
    return stopped
  })

/** What one follow pass did: how many opened jobs it followed, and what could not be recorded (one line per job). */
export interface SyncReport {
  readonly followed: number
  readonly problems: ReadonlyArray<string>
}

/** The status sync inside a dispatcher: follows every opened job, and stops every stopping one. */
export interface StatusSync {
  /** One Find per queue for its opened jobs, each moved through the status machine (see `syncPassEffect`); fails with
   * what the database threw. */
  readonly follow: Effect.Effect<SyncReport, unknown>
  /** Stops every stopping job (cancelled, deleted, or failed after something may have landed) that is due and no
   * dispatcher holds; answers how many stops are done (see `stopPassEffect`). */
  readonly stopCancelled: Effect.Effect<number, unknown>
}

/** The status sync as an Effect service, which the dispatcher's passes call. */
export class StatusSyncService extends Context.Service<StatusSyncService, StatusSync>()("dispatch/StatusSync") {}

/** The status sync over one dispatcher's context (its cluster and clock) and the database in context: its passes
 * run in the caller's fiber. */
export const statusSyncLayer = (context: DispatchContext): Layer.Layer<StatusSyncService, never, SqlClient.SqlClient> =>
  Layer.effect(
    StatusSyncService,
    Effect.map(Effect.context<SqlClient.SqlClient>(), (database) => ({
      follow: Effect.provideContext(syncPassEffect(context), database),
      stopCancelled: Effect.provideContext(stopPassEffect(context), database)
    }))
  )
