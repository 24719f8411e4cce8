import type { AcceptedJob, JobStatus } from "@dispatch/jobs"
import { Result, Schema } from "effect"
import { IdParam, type JobResponse } from "./ApiSchemas.ts"
import type { Sql } from "./Database.ts"
import { lockActiveJob, setDispatchState, type ActiveJob } from "./DispatchStore.ts"
import { insertJob, readJob, updateJobStatus } from "./JobStore.ts"
import { JobsGroup } from "./Api.ts"
import { ownerOf } from "./JobRoutes.ts"
import { jobWire } from "./JobWire.ts"
import { route, type RequestContext } from "./Route.ts"
import { ClusterActionFailed, JobNotControllable, refusal, ResourceNotFound, type Refusal } from "./ServiceProblem.ts"

const JobParams = Schema.Struct({ id: IdParam })

type Context = RequestContext<typeof JobParams.Type, undefined, undefined>

const notFound = (id: number) => refusal(new ResourceNotFound({ resource: "job", id: String(id) }))

const notControllable = (action: string, row: ActiveJob) =>
  Result.fail(refusal(new JobNotControllable({ action, job: row.id, jobStatus: row.status, dispatch: row.dispatchState })))

/** Reads the caller's job and its dispatch row, locked; 404 when the job is not the group's. */
const lockedJob = async (sql: Sql, group: string, id: number): Promise<ActiveJob | undefined> =>
  (await readJob(sql, group, id, true)) === undefined ? undefined : lockActiveJob(sql, id)

const answer = async (context: Context): Promise<Result.Result<JobResponse, Refusal>> => {
  const job = await readJob(context.db, context.principal.group, context.params.id)
  return job === undefined ? Result.fail(notFound(context.params.id)) : Result.succeed(jobWire(job, context.link))
}

/** What a hold or release decides on the locked job: a refusal, done (written already), or a cluster action to
 * run and then a write that is applied only if the job is still in the same dispatch state. */
type Decision =
  | { readonly kind: "refuse"; readonly refusal: Result.Result<never, Refusal> }
  | { readonly kind: "done" }
  | { readonly kind: "cluster"; readonly which: "hold" | "release"; readonly write: (sql: Sql, row: ActiveJob) => Promise<void> }

// The cluster is called outside any transaction (it may take seconds); the write after it re-checks the job.
const control = async (context: Context, action: "hold" | "release", decide: (sql: Sql, row: ActiveJob) => Promise<Decision>) => {
  const { db, principal, params } = context
  const decided: { readonly row: ActiveJob; readonly decision: Decision } | undefined = await db.transaction(async (sql) => {
    const row = await lockedJob(sql, principal.group, params.id)
    return row === undefined ? undefined : { row, decision: await decide(sql, row) }
  })
  if (decided === undefined) return Result.fail(notFound(params.id))
  const { row, decision } = decided
  if (decision.kind === "refuse") return decision.refusal
  if (decision.kind === "cluster") {
    if (context.control === undefined || row.key === null) return notControllable(action, row)
    const done = await context.control.transition(row.queue, row.key, decision.which)
    if (done.kind !== "ok") {
      const error = done.kind === "error" ? done.error._tag : "Abandoned"
      const reasons = done.kind === "error" ? done.error.reasons : [done.reason]
      return Result.fail(refusal(new ClusterActionFailed({ action, job: row.id, error, reasons })))
    }
    // Status sync may have moved the job meanwhile (queued -> started): the write uses its status now, and is
    // skipped only when the job left the dispatch state the cluster action was for (it ended, or was cancelled).
    await db.transaction(async (sql) => {
      const now = await lockActiveJob(sql, row.id)
      if (now !== undefined && now.dispatchState === row.dispatchState) await decision.write(sql, now)
    })
  }
  return answer(context)
}

const onCluster = (row: ActiveJob) => row.dispatchState === "opened" || row.dispatchState === "held" || row.dispatchState === "starting"

/** Cancel, hold, release and re-run. */
export const jobControlRoutes = [
  route(JobsGroup, "cancel", {
    handle: async (context) => {
      const { db, principal, params, now } = context
      const outcome = await db.transaction(async (sql) => {
        const row = await lockedJob(sql, principal.group, params.id)
        if (row === undefined) return Result.fail(notFound(params.id))
        if (row.status === "finished" || row.status === "failed") return notControllable("cancel", row)
        await updateJobStatus(sql, row.id, "failed", now(), "cancelled")
        // A job on the cluster (or being put there) keeps its claim: Stop runs once no dispatcher holds it.
        await setDispatchState(sql, row.id, onCluster(row) ? "stopping" : "done", "cancelled")
        return Result.succeed(undefined)
      })
      if (Result.isFailure(outcome)) return Result.fail(outcome.failure)
      context.control?.wake()
      return answer(context)
    }
  }),
  route(JobsGroup, "hold", {
    handle: (context) =>
      control(context, "hold", async (sql, row): Promise<Decision> => {
        const hold = async (inner: Sql, current: ActiveJob, state: "pending" | "held") => {
          await updateJobStatus(inner, current.id, "deferred", context.now(), "held")
          await setDispatchState(inner, current.id, state, "held", current.status)
        }
        if (row.dispatchState === "pending" && row.status === "queued") {
          await hold(sql, row, "pending")
          return { kind: "done" }
        }
        if (row.dispatchState === "opened" && (row.status === "queued" || row.status === "started")) {
          return { kind: "cluster", which: "hold", write: (inner, current) => hold(inner, current, "held") }
        }
        return { kind: "refuse", refusal: notControllable("hold", row) }
      })
  }),
  route(JobsGroup, "release", {
    handle: (context) =>
      control(context, "release", async (sql, row): Promise<Decision> => {
        const back = (current: ActiveJob): JobStatus => (current.heldFrom === "started" ? "started" : "queued")
        const release = async (inner: Sql, current: ActiveJob, state: "pending" | "opened") => {
          await updateJobStatus(inner, current.id, back(current), context.now(), "released")
          await setDispatchState(inner, current.id, state, null)
        }
        if (row.status !== "deferred") return { kind: "refuse", refusal: notControllable("release", row) }
        if (row.dispatchState === "pending") {
          await release(sql, row, "pending")
          return { kind: "done" }
        }
        if (row.dispatchState === "held") return { kind: "cluster", which: "release", write: (inner, current) => release(inner, current, "opened") }
        return { kind: "refuse", refusal: notControllable("release", row) }
      })
  }),
  route(JobsGroup, "rerun", {
    handle: ({ db, principal, params, now, link }) =>
      db.transaction(async (sql) => {
        const job = (await readJob(sql, principal.group, params.id))?.job
        if (job === undefined) return Result.fail(notFound(params.id))
        // A stored job carries every field of the request it was accepted from, frozen at creation.
        const accepted: AcceptedJob = job
        const created = await insertJob(sql, ownerOf(principal), accepted, now(), job.id)
        return created === undefined ? Result.fail(notFound(job.id)) : Result.succeed(jobWire(created, link))
      })
  })
]
