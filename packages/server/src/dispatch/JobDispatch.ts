import { find, open, start, type Backend, type JobKey, type StartError } from "@dispatch/effects"
import { step, toStartRequest, type DispatchCommand, type DispatchEvent, type Fault } from "@dispatch/jobs"
import type { StartRequest } from "@dispatch/render"
import { Effect, Option, Result } from "effect"
import { SqlClient } from "effect/sql"
import type { TrainJobRef } from "../wire/ApiSchemas.ts"
import { backendOf, machineInput, readGate, storeGate, type DispatchContext } from "./DispatchContext.ts"
import { rowAfter } from "./DispatchRow.ts"
import { claimJobsEffect, type ClaimedJob } from "./Claims.ts"
import { dispatchLeases } from "../store/DispatchLeases.ts"
import { reasonOf } from "../store/Database.ts"
import { dispatchRows, isClaimed } from "../store/DispatchRows.ts"
import { faultOf } from "./Retries.ts"
import { launchedAnyway } from "./LaunchCheck.ts"
import { jobs } from "../store/Jobs.ts"
import { reportToken, reportTokenKey, serviceUrlKey } from "./ReportToken.ts"
import { resources } from "../store/Resources.ts"

/** What one claimed job needs to go to the cluster. */
interface Prepared {
  readonly queue: number
  readonly backend: Backend
  readonly request: StartRequest
  readonly key: JobKey
}

/** A typed error as it is stored on the job (`last_error`). */
export const recordedError = (error: StartError) => ({
  error: error._tag,
  reasons: error.reasons,
  ...("ref" in error && error.ref !== undefined ? { ref: error.ref } : {})
})

/** A cluster call's answer as the machine takes it, with what the service keeps beside the state: the TrainJob
 * it made or found, and the typed error of a failed call. */
interface Outcome {
  readonly event: DispatchEvent
  readonly trainJob?: TrainJobRef
  readonly error?: ReturnType<typeof recordedError>
}

// The request is made once, by the first claim, and kept: every later attempt, in any process, starts the same
// TrainJob (same JobID, same env), so a retried Start adopts what an earlier one created instead of making another.
const prepare = (context: DispatchContext, claimed: ClaimedJob): Effect.Effect<Result.Result<Prepared, string>, unknown, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const { row } = claimed
    const job = Option.getOrUndefined(yield* Effect.flatMap(jobs, (stored) => stored.read(row.group, row.id)))?.job
    if (job === undefined) return Result.fail(`job ${row.id} no longer exists`)
    const store = yield* resources
    const queue = yield* store.readQueue(row.group, job.queue)
    const entrypoint = yield* store.readEntrypoint(row.group, job.entrypoint, job.entrypointSnapshot)
    if (queue === undefined || entrypoint === undefined) return Result.fail(`the job's queue ${job.queue} or entrypoint ${job.entrypoint} no longer exists`)
    if (queue.backend === undefined) return Result.fail(`queue ${queue.id} has no backend`)
    const backend = backendOf(queue.backend.config, yield* readGate(queue.id))
    if (Result.isFailure(backend)) return Result.fail(`queue ${queue.id}'s config does not decode: ${backend.failure.join("; ")}`)
    let request = claimed.startRequest as StartRequest | null
    if (request === null) {
      const made = toStartRequest(job, queue, entrypoint, { time: context.clock(), entropy: context.entropy(10) })
      if (Result.isFailure(made)) return Result.fail(made.failure.problems.map((p) => p.message).join("; "))
      request = { ...made.success, spec: { ...made.success.spec, env: { ...made.success.spec.env, [serviceUrlKey]: context.reportUrl } } }
      const kept = request
      yield* Effect.flatMap(dispatchLeases, (leases) => leases.saveStartRequest(row.id, kept))
    }
    // The token is derived, never stored: added here, it is the same on every attempt.
    const withToken: StartRequest = { ...request, spec: { ...request.spec, env: { ...request.spec.env, [reportTokenKey]: reportToken(context.secret, row.id) } } }
    return Result.succeed({ queue: queue.id, backend: backend.success, request: withToken, key: { job: request.job, submission: request.submission } })
  })

const refOf = (ref: { readonly namespace: string; readonly name: string; readonly uid?: string }): TrainJobRef => ({
  namespace: ref.namespace,
  name: ref.name,
  ...(ref.uid === undefined || ref.uid === "" ? {} : { uid: ref.uid })
})

/** A failed call as the machine's event `make` takes it, with the typed error kept on the job. */
const failed = (context: DispatchContext, prepared: Prepared, error: StartError, make: (fault: Fault) => DispatchEvent): Outcome => ({
  event: make(faultOf(error, context.clock(), prepared.backend.config.timeouts.callBoundMs)),
  error: recordedError(error)
})

// Runs one of the machine's cluster commands; undefined when the service is closing (the claim then stays until the
// dispatcher hands it back, or its lease ends).
const execute = (context: DispatchContext, command: "start" | "look" | "open", prepared: Prepared): Effect.Effect<Outcome | undefined> =>
  Effect.gen(function* () {
    const { backend, request, key } = prepared
    switch (command) {
      case "look": {
        const found = yield* context.cluster.run(find(backend, key))
        if (found.kind === "abandoned") return undefined
        if (found.kind === "error") return failed(context, prepared, found.error, (fault) => ({ type: "findFailed", fault }))
        const status = found.value
        const event: DispatchEvent = status.state === "InFlight" ? { type: "found", found: "InFlight", untilMs: status.untilMs } : { type: "found", found: status.state }
        return status.state === "Absent" || status.state === "InFlight" ? { event } : { event, trainJob: refOf(status.ref) }
      }
      case "start": {
        const started = yield* context.cluster.run(start(backend, request))
        if (started.kind === "abandoned") return undefined
        if (started.kind === "error") return failed(context, prepared, started.error, (fault) => ({ type: "startFailed", fault }))
        return { event: { type: "startOk" }, trainJob: refOf(started.value) }
      }
      case "open": {
        const opened = yield* context.cluster.run(open(backend, key))
        if (opened.kind === "abandoned") return undefined
        // Open verifies by reading back: a run that ended between its write and that read looks refused, so Find says.
        if (opened.kind === "ok" || (yield* launchedAnyway(context.cluster, backend, key, opened.error))) return { event: { type: "openOk" } }
        return failed(context, prepared, opened.error, (fault) => ({ type: "openFailed", fault }))
      }
    }
  })

const isCall = (command: DispatchCommand): command is Extract<DispatchCommand, { readonly type: "start" | "look" | "open" }> =>
  command.type === "start" || command.type === "look" || command.type === "open"

/** Takes one claimed job through the machine: runs each cluster call it asks for, feeds the answer back and writes
 * the state it answers, until it asks for no more (it rests: opened, queued for a retry, waiting out an unanswered
 * create, or stopping). An answer for a job that moved meanwhile (cancelled, deleted) is dropped and the claim given
 * back: the stop pass takes the job from there. */
const dispatchOne = (context: DispatchContext, claimed: ClaimedJob): Effect.Effect<void, unknown, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const leases = yield* dispatchLeases
    let row = claimed.row
    let state = claimed.state
    let commands = claimed.commands
    let prepared: Prepared | undefined
    for (let call = commands.find(isCall); call !== undefined; call = commands.find(isCall)) {
      let outcome: Outcome | undefined
      if (prepared === undefined) {
        const made = yield* prepare(context, claimed)
        if (Result.isFailure(made)) outcome = { event: { type: "unpreparable", reason: made.failure } }
        else prepared = made.success
      }
      if (outcome === undefined && prepared !== undefined) outcome = yield* execute(context, call.type, prepared)
      if (outcome === undefined) return
      const { trainJob, error } = outcome
      const id = row.id
      if (trainJob !== undefined) yield* leases.saveTrainJob(id, trainJob)
      const answer = step(state, outcome.event, machineInput(context))
      const at = context.now()
      const written = yield* sql.withTransaction(Effect.flatMap(dispatchRows, (rows) => rows.writeAnswer(row, answer, at, error === undefined ? {} : { error })))
      if (!written) return yield* leases.releaseClaim(id, context.instance)
      for (const command of answer.commands) {
        if (command.type === "reprove" && prepared !== undefined) {
          const queue = prepared.queue
          yield* storeGate(queue, { state: "read-only", reason: command.reason }, at, context.clock())
          context.log?.(`dispatch: queue ${queue}: read-only: ${command.reason}`)
        }
      }
      row = rowAfter(row, answer.state, isClaimed(answer.state) ? context.instance : null)
      state = answer.state
      commands = answer.commands
    }
  })

/** What a pass could not record, one line per job: the database failed while the job was being dispatched. */
export const problemOf = (job: number, cause: unknown): string => `job ${job}: ${reasonOf(cause)}`

/** What one dispatch pass did: how many jobs it claimed, and what it could not record (one line per job). */
export interface DispatchReport {
  readonly claimed: number
  readonly problems: ReadonlyArray<string>
}

/** Claims up to `limit` due jobs and takes each through the machine (Start, then Open), all at once; ends when
 * every one has been recorded. A job whose recording fails keeps its claim until the lease runs out, and the
 * failure is returned. Fails only when the claim itself fails. */
export const dispatchPassEffect = (context: DispatchContext, limit: number): Effect.Effect<DispatchReport, unknown, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const claimed = yield* sql.withTransaction(claimJobsEffect(context.instance, machineInput(context), context.leaseMs, limit, context.now()))
    const problems = yield* Effect.forEach(claimed, (job) => Effect.match(dispatchOne(context, job), { onFailure: (cause) => [problemOf(job.row.id, cause)], onSuccess: () => [] }), {
      concurrency: "unbounded"
    })
    return { claimed: claimed.length, problems: problems.flat() }
  })
