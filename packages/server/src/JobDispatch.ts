import { find, open, start, type Backend, type JobKey, type StartError } from "@dispatch/effects"
import { toStartRequest } from "@dispatch/jobs"
import type { StartRequest } from "@dispatch/render"
import { Result } from "effect"
import type { TrainJobRef } from "./ApiSchemas.ts"
import { backendOf, type DispatchContext } from "./DispatchContext.ts"
import { claimJobs, readGate, recordFailed, recordOpened, recordRetry, saveStartRequest, saveTrainJob, writeGate, type ClaimedJob } from "./DispatchStore.ts"
import { errorAction } from "./ErrorAction.ts"
import { launchedAnyway } from "./LaunchCheck.ts"
import { readJob } from "./JobStore.ts"
import { reportToken, reportTokenKey, serviceUrlKey } from "./ReportToken.ts"
import { readEntrypoint, readQueue } from "./ResourceStore.ts"

/** What one claimed job needs to go to the cluster. */
interface Prepared {
  readonly queue: number
  readonly backend: Backend
  readonly request: StartRequest
  readonly key: JobKey
}

/** How one dispatch attempt ended. */
type Attempt =
  | { readonly kind: "opened" }
  | { readonly kind: "error"; readonly error: StartError }
  | { readonly kind: "wait"; readonly reason: string }
  | { readonly kind: "refused"; readonly reason: string }
  | { readonly kind: "abandoned" }

/** A typed error as it is stored on the job (`last_error`). */
export const recordedError = (error: StartError) => ({
  error: error._tag,
  reasons: error.reasons,
  ...("ref" in error && error.ref !== undefined ? { ref: error.ref } : {})
})

// The request is made once, by the first claim, and kept: every later attempt, in any process, starts the same
// TrainJob (same JobID, same env), so a retried Start adopts what an earlier one created instead of making another.
const prepare = async (context: DispatchContext, claimed: ClaimedJob): Promise<Result.Result<Prepared, string>> => {
  const job = (await readJob(context.db, claimed.group, claimed.id))?.job
  if (job === undefined) return Result.fail(`job ${claimed.id} no longer exists`)
  const queue = await readQueue(context.db, claimed.group, job.queue)
  const entrypoint = await readEntrypoint(context.db, claimed.group, job.entrypoint, job.entrypointSnapshot)
  if (queue === undefined || entrypoint === undefined) return Result.fail(`the job's queue ${job.queue} or entrypoint ${job.entrypoint} no longer exists`)
  if (queue.backend === undefined) return Result.fail(`queue ${queue.id} has no backend`)
  const backend = backendOf(queue.backend.config, await readGate(context.db, queue.id))
  if (Result.isFailure(backend)) return Result.fail(`queue ${queue.id}'s config does not decode: ${backend.failure.join("; ")}`)
  let request = claimed.startRequest as StartRequest | null
  if (request === null) {
    const made = toStartRequest(job, queue, entrypoint, { time: context.clock(), entropy: context.entropy(10) })
    if (Result.isFailure(made)) return Result.fail(made.failure.problems.map((p) => p.message).join("; "))
    request = { ...made.success, spec: { ...made.success.spec, env: { ...made.success.spec.env, [serviceUrlKey]: context.reportUrl } } }
    await saveStartRequest(context.db, claimed.id, request)
  }
  // The token is derived, never stored: added here, it is the same on every attempt.
  const withToken: StartRequest = { ...request, spec: { ...request.spec, env: { ...request.spec.env, [reportTokenKey]: reportToken(context.secret, claimed.id) } } }
  return Result.succeed({ queue: queue.id, backend: backend.success, request: withToken, key: { job: request.job, submission: request.submission } })
}

const refOf = (ref: { readonly namespace: string; readonly name: string; readonly uid?: string }): TrainJobRef => ({
  namespace: ref.namespace,
  name: ref.name,
  ...(ref.uid === undefined || ref.uid === "" ? {} : { uid: ref.uid })
})

// Any attempt after the first may follow one whose create landed unseen (an unanswered create, a process that
// died mid-Start): it looks with Find before it starts anything. A TrainJob still held was never opened, so the
// Start that made it may have died before all its steps (the copy's owner, the read-back, the Workload): Start
// runs again, adopts that TrainJob and finishes them, instead of opening it as it is.
const attempt = async (context: DispatchContext, claimed: ClaimedJob, prepared: Prepared): Promise<Attempt> => {
  const { backend, request, key } = prepared
  if (claimed.attempts > 1) {
    const found = await context.cluster.run(find(backend, key))
    if (found.kind !== "ok") return found.kind === "error" ? found : { kind: "abandoned" }
    const state = found.value.state
    if (state === "InFlight") return { kind: "wait", reason: `the TrainJob's create went unanswered; waiting until it may no longer land before starting again` }
    if (state === "Stopping") return { kind: "refused", reason: `the TrainJob ${found.value.ref.namespace}/${found.value.ref.name} is being deleted` }
    if (state !== "Absent" && state !== "Held") {
      await saveTrainJob(context.db, claimed.id, refOf(found.value.ref))
      return { kind: "opened" }
    }
  }
  const started = await context.cluster.run(start(backend, request))
  if (started.kind !== "ok") return started.kind === "error" ? started : { kind: "abandoned" }
  await saveTrainJob(context.db, claimed.id, refOf(started.value))
  const opened = await context.cluster.run(open(backend, key))
  if (opened.kind === "ok") return { kind: "opened" }
  if (opened.kind === "abandoned") return { kind: "abandoned" }
  return (await launchedAnyway(context.cluster, backend, key, opened.error)) ? { kind: "opened" } : opened
}

const settle = async (context: DispatchContext, claimed: ClaimedJob, queue: number, outcome: Attempt): Promise<void> => {
  const { db, instance } = context
  switch (outcome.kind) {
    case "opened":
      return recordOpened(db, claimed.id, instance)
    case "abandoned":
      // The service is closing: the claim stays, and its lease decides when another process takes the job.
      return
    case "refused":
      await recordFailed(db, claimed.id, instance, outcome.reason, null, context.now())
      return
    case "wait":
      return recordRetry(db, claimed.id, instance, context.clock() + context.backoff.baseMs, outcome.reason, null)
    case "error": {
      const action = errorAction(outcome.error, claimed.attempts, context.backoff)
      const reason = action.reasons.join("; ")
      if (action.kind === "fail") {
        await recordFailed(db, claimed.id, instance, reason, recordedError(outcome.error), context.now())
        return
      }
      if (action.kind === "reprove") {
        await writeGate(db, queue, { state: "read-only", reason }, context.now(), context.clock())
      }
      return recordRetry(db, claimed.id, instance, context.clock() + action.delayMs, reason, recordedError(outcome.error))
    }
  }
}

const dispatchOne = async (context: DispatchContext, claimed: ClaimedJob): Promise<void> => {
  const prepared = await prepare(context, claimed)
  if (Result.isFailure(prepared)) {
    await recordFailed(context.db, claimed.id, context.instance, prepared.failure, null, context.now())
    return
  }
  await settle(context, claimed, prepared.success.queue, await attempt(context, claimed, prepared.success))
}

/** What a pass could not record, one line per job: the database failed while the job was being dispatched. */
export const problemOf = (job: number, cause: unknown): string => `job ${job}: ${cause instanceof Error ? cause.message : String(cause)}`

/** Claims up to `limit` due jobs and takes each to the cluster (Start, then Open), all at once; resolves when
 * every one has been recorded. A job whose recording fails keeps its claim until the lease runs out, and the
 * failure is returned. */
export const dispatchPass = async (context: DispatchContext, limit: number): Promise<{ readonly claimed: number; readonly problems: ReadonlyArray<string> }> => {
  const claimed = await claimJobs(context.db, context.instance, context.clock(), context.leaseMs, limit)
  const problems: Array<string> = []
  await Promise.all(claimed.map((job) => dispatchOne(context, job).catch((cause: unknown) => void problems.push(problemOf(job.id, cause)))))
  return { claimed: claimed.length, problems }
}
