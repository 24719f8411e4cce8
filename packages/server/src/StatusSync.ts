import { findMany, stop, type JobStatus as FoundStatus } from "@dispatch/effects"
import { stepsToward, type JobStatus } from "@dispatch/jobs"
import { Context, Layer, Result } from "effect"
import { backendOf, type DispatchContext } from "./DispatchContext.ts"
import { lockActiveJob, openedJobs, queueConfigs, readGates, setDispatchState, stoppingJobs, type ActiveJob } from "./DispatchStore.ts"
import { problemOf } from "./JobDispatch.ts"
import { updateJobStatus } from "./JobStore.ts"

/** What Find's answer does to a job: the statuses it passes through, the reason of the last, and whether it ended. */
export interface StatusMove {
  readonly steps: ReadonlyArray<JobStatus>
  readonly reason?: string
  readonly ended: boolean
}

// Dioptra's machine fails only a started job; a job that never ran is failed directly, with the reason kept.
const failedWith = (reason: string): StatusMove => ({ steps: ["failed"], reason, ended: true })

/** The move Find's answer makes for a job with this status: pure, so it is tested on its own. */
export const statusMove = (from: JobStatus, found: FoundStatus): StatusMove => {
  const where = `${found.ref.namespace}/${found.ref.name}`
  switch (found.state) {
    case "Absent":
      return failedWith(`the TrainJob ${where} no longer exists`)
    case "Stopping":
      return failedWith(`the TrainJob ${where} is being deleted`)
    case "Held":
      // Opened by the dispatcher, held by someone else: nothing to record until it moves.
      return { steps: [], ended: false }
    case "InFlight":
    case "Queued":
    case "Running":
    case "Succeeded":
    case "Failed": {
      const steps = stepsToward(from, found.state)
      // A started job seen Queued again (Kueue requeued it) stays started: only a reset goes back.
      const path = Result.isSuccess(steps) ? steps.success : []
      const ended = found.state === "Succeeded" || found.state === "Failed"
      const reason = found.state === "Failed" ? `${found.reason}: ${found.message}` : found.state === "Succeeded" ? found.reason : undefined
      return { steps: path, ended, ...(reason === undefined ? {} : { reason }) }
    }
  }
}

const apply = async (context: DispatchContext, job: ActiveJob, found: FoundStatus): Promise<void> => {
  const move = statusMove(job.status, found)
  if (move.steps.length === 0 && !move.ended) return
  await context.db.transaction(async (sql) => {
    const now = await lockActiveJob(sql, job.id)
    // Changed since it was listed (cancelled, held): this answer is about a job that is no longer there.
    if (now === undefined || now.dispatchState !== "opened" || now.status !== job.status) return
    const at = context.now()
    for (const [i, step] of move.steps.entries()) await updateJobStatus(sql, job.id, step, at, i === move.steps.length - 1 ? move.reason : undefined)
    if (move.ended) await setDispatchState(sql, job.id, "done", move.reason ?? null)
  })
}

const byQueue = (jobs: ReadonlyArray<ActiveJob>): ReadonlyMap<number, ReadonlyArray<ActiveJob>> => {
  const groups = new Map<number, Array<ActiveJob>>()
  for (const job of jobs) groups.set(job.queue, [...(groups.get(job.queue) ?? []), job])
  return groups
}

/** Follows every opened job: one Find for all of a queue's jobs (one labelled list), then each job moves through
 * the status machine as its TrainJob did. A queue whose Find fails is left for the next pass. */
export const syncPass = async (context: DispatchContext): Promise<SyncReport> => {
  const problems: Array<string> = []
  const jobs = (await openedJobs(context.db)).filter((j) => j.key !== null)
  const groups = byQueue(jobs)
  const configs = await queueConfigs(context.db, [...groups.keys()])
  const gates = await readGates(context.db)
  for (const [queue, members] of groups) {
    const backend = backendOf(configs.get(queue), gates.get(queue))
    if (Result.isFailure(backend)) continue
    const found = await context.cluster.run(findMany(backend.success, members.map((j) => ({ job: j.key ?? "", submission: 1 }))))
    if (found.kind !== "ok") continue
    for (const [i, job] of members.entries()) {
      const status = found.value[i]
      if (status !== undefined) await apply(context, job, status).catch((cause: unknown) => void problems.push(problemOf(job.id, cause)))
    }
  }
  return { followed: jobs.length, problems }
}

/** Stops the TrainJob of every cancelled job that no dispatcher holds; a Stop that cannot finish yet (its create
 * may still land, the cluster is unreachable) is tried again next pass. */
export const stopPass = async (context: DispatchContext): Promise<number> => {
  const jobs = await stoppingJobs(context.db, context.clock())
  const configs = await queueConfigs(context.db, [...new Set(jobs.map((j) => j.queue))])
  const gates = await readGates(context.db)
  let stopped = 0
  for (const job of jobs) {
    if (job.key === null) {
      await setDispatchState(context.db, job.id, "done", "cancelled before it reached the cluster")
      continue
    }
    const backend = backendOf(configs.get(job.queue), gates.get(job.queue))
    if (Result.isFailure(backend)) continue
    const result = await context.cluster.run(stop(backend.success, { job: job.key, submission: 1 }))
    if (result.kind === "ok") {
      await setDispatchState(context.db, job.id, "done", "cancelled: the TrainJob was stopped")
      stopped++
    } else if (result.kind === "error" && (result.error._tag === "ErrRejected" || result.error._tag === "ErrInvalid")) {
      await setDispatchState(context.db, job.id, "done", `cancelled; Stop refused: ${result.error.reasons.join("; ")}`)
    }
  }
  return stopped
}

/** What one follow pass did: how many opened jobs it followed, and what could not be recorded (one line per job). */
export interface SyncReport {
  readonly followed: number
  readonly problems: ReadonlyArray<string>
}

/** The status sync inside a dispatcher: follows every opened job, and stops the TrainJobs of cancelled ones. */
export interface StatusSync {
  /** One Find per queue for its opened jobs, each moved through the status machine (see `syncPass`). */
  readonly follow: () => Promise<SyncReport>
  /** Stops every cancelled job's TrainJob no dispatcher holds; answers how many were stopped (see `stopPass`). */
  readonly stopCancelled: () => Promise<number>
}

/** The status sync as an Effect service, which the dispatcher's passes call. */
export class StatusSyncService extends Context.Service<StatusSyncService, StatusSync>()("dispatch/StatusSync") {}

/** The status sync over one dispatcher's context (its database, cluster and clock). */
export const statusSyncLayer = (context: DispatchContext): Layer.Layer<StatusSyncService> =>
  Layer.succeed(StatusSyncService, { follow: () => syncPass(context), stopCancelled: () => stopPass(context) })
