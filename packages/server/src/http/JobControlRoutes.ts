import { defaultRetryPolicy, step, type AcceptedJob, type DispatchInput } from "@dispatch/jobs"
import { Option, Result, Schema } from "effect"
import { IdParam, type JobResponse } from "../wire/ApiSchemas.ts"
import type { Sql } from "../store/Database.ts"
import { lockDispatchRow, stateOf, writeAnswer, type DispatchRow } from "../dispatch/DispatchRow.ts"
import { onStore } from "../store/DatabaseBridge.ts"
import { jobs } from "../store/Jobs.ts"
import { JobsGroup } from "./Api.ts"
import { ownerOf } from "./JobRoutes.ts"
import { jobWire } from "../wire/JobWire.ts"
import { promiseRoute as route, type RequestContext } from "./Route.ts"
import { ClusterActionFailed, JobNotControllable, refusal, ResourceNotFound, type Refusal } from "../wire/ServiceProblem.ts"

const JobParams = Schema.Struct({ id: IdParam })

type Context = RequestContext<typeof JobParams.Type, undefined, undefined>

const notFound = (id: number) => refusal(new ResourceNotFound({ resource: "job", id: String(id) }))

const notControllable = (action: string, row: DispatchRow) =>
  Result.fail(refusal(new JobNotControllable({ action, job: row.id, jobStatus: row.status, dispatch: row.dispatchState })))

/** Reads the caller's job and its dispatch row, locked; undefined when the job is not the group's. */
const lockedJob = async (sql: Sql, group: string, id: number): Promise<DispatchRow | undefined> =>
  Option.isNone(await onStore(sql, jobs, (stored) => stored.read(group, id, true))) ? undefined : lockDispatchRow(sql, id)

const answer = async (context: Context): Promise<Result.Result<JobResponse, Refusal>> => {
  const job = Option.getOrUndefined(await onStore(context.db, jobs, (stored) => stored.read(context.principal.group, context.params.id)))
  return job === undefined ? Result.fail(notFound(context.params.id)) : Result.succeed(jobWire(job, context.link))
}

const inputOf = (context: Context): DispatchInput => ({ nowMs: Date.parse(context.now()), policy: defaultRetryPolicy, draw: 0 })

/**
 * A user's action on a job, as the machine answers it: refused (409), written at once, or, when it asks for a
 * Hold or Release on the cluster, that call (outside any transaction: it may take seconds), whose answer is fed
 * back and written only if the job is still in the state the call was for. A dispatcher's claim is kept, so
 * nothing stops a job while its Start runs: the stop waits until the claim is given back or its lease ends.
 */
const act = async (context: Context, action: "cancel" | "hold" | "release") => {
  const { db, principal, params } = context
  const decided = await db.transaction(async (sql) => {
    const row = await lockedJob(sql, principal.group, params.id)
    if (row === undefined) return undefined
    const decision = step(stateOf(row), { type: action }, inputOf(context))
    if (decision.refused === undefined && !decision.commands.some((c) => c.type === "hold" || c.type === "release")) {
      await writeAnswer(sql, row, decision, context.now(), { claim: "keep", modified: true })
    }
    return { row, decision }
  })
  if (decided === undefined) return Result.fail(notFound(params.id))
  const { row, decision } = decided
  if (decision.refused !== undefined) return notControllable(action, row)
  const call = decision.commands.find((c) => c.type === "hold" || c.type === "release")
  if (call !== undefined && (call.type === "hold" || call.type === "release")) {
    if (context.control === undefined || row.key === null) return notControllable(action, row)
    const done = await context.control.transition(row.queue, row.key, call.type)
    if (done.kind !== "ok") {
      const error = done.kind === "error" ? done.error._tag : "Abandoned"
      const reasons = done.kind === "error" ? done.error.reasons : [done.reason]
      return Result.fail(refusal(new ClusterActionFailed({ action, job: row.id, error, reasons })))
    }
    // Status sync may have moved the job meanwhile (queued -> started): the answer is the machine's on the job as
    // it is now, and is dropped only when the job left the dispatch state the call was for (it ended, or was cancelled).
    await db.transaction(async (sql) => {
      const now = await lockDispatchRow(sql, row.id)
      if (now === undefined || now.dispatchState !== row.dispatchState) return
      const fed = step(stateOf(now), { type: call.type === "hold" ? "holdOk" : "releaseOk" }, inputOf(context))
      await writeAnswer(sql, now, fed, context.now(), { claim: "keep" })
    })
  }
  if (action === "cancel") context.control?.wake()
  return answer(context)
}

/** Cancel, hold, release and re-run. */
export const jobControlRoutes = [
  route(JobsGroup, "cancel", { handle: (context) => act(context, "cancel") }),
  route(JobsGroup, "hold", { handle: (context) => act(context, "hold") }),
  route(JobsGroup, "release", { handle: (context) => act(context, "release") }),
  route(JobsGroup, "rerun", {
    handle: ({ db, principal, params, now, link }) =>
      db.transaction(async (sql) => {
        const job = Option.getOrUndefined(await onStore(sql, jobs, (stored) => stored.read(principal.group, params.id)))?.job
        if (job === undefined) return Result.fail(notFound(params.id))
        // A stored job carries every field of the request it was accepted from, frozen at creation.
        const accepted: AcceptedJob = job
        const created = Option.getOrUndefined(await onStore(sql, jobs, (stored) => stored.insert(ownerOf(principal), accepted, now(), job.id)))
        return created === undefined ? Result.fail(notFound(job.id)) : Result.succeed(jobWire(created, link))
      })
  })
]
