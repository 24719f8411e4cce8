import { step, type AcceptedJob, type DispatchCommand } from "@dispatch/jobs"
import { Effect, Option } from "effect"
import { stateOf } from "../dispatch/DispatchRow.ts"
import { dispatchRows, type DispatchRow } from "../store/DispatchRows.ts"
import { jobs } from "../store/Jobs.ts"
import { JobsGroup } from "./Api.ts"
import { findJob, jobAnswer, machineInput, ownerOf } from "./JobRoutes.ts"
import { route } from "./Route.ts"
import { Caller, Control, now, stored, transaction } from "./RequestServices.ts"
import { ClusterActionFailed, JobNotControllable, refusal, ResourceNotFound } from "../wire/ServiceProblem.ts"

const notFound = (id: number) => refusal(new ResourceNotFound({ resource: "job", id: String(id) }))

const notControllable = (action: string, row: DispatchRow) =>
  Effect.fail(refusal(new JobNotControllable({ action, job: row.id, jobStatus: row.status, dispatch: row.dispatchState })))

/** The caller's job's dispatch row, locked; none when the job is not the group's. */
const lockedJob = (id: number) =>
  Effect.gen(function* () {
    const { group } = yield* Caller
    const store = yield* jobs
    if (Option.isNone(yield* stored(store.read(group, id, true)))) return Option.none<DispatchRow>()
    const rows = yield* dispatchRows
    return yield* stored(rows.lock(id))
  })

const clusterCall = (command: DispatchCommand): command is DispatchCommand & { readonly type: "hold" | "release" } => command.type === "hold" || command.type === "release"

/**
 * A user's action on a job, as the machine answers it: refused (409), written at once, or, when it asks for a
 * Hold or Release on the cluster, that call (outside any transaction: it may take seconds), whose answer is fed
 * back and written only if the job is still in the state the call was for. A dispatcher's claim is kept, so
 * nothing stops a job while its Start runs: the stop waits until the claim is given back or its lease ends.
 */
const act = (id: number, action: "cancel" | "hold" | "release") =>
  Effect.gen(function* () {
    const decided = yield* transaction(
      Effect.gen(function* () {
        const found = yield* lockedJob(id)
        if (Option.isNone(found)) return undefined
        const row = found.value
        const decision = step(stateOf(row), { type: action }, yield* machineInput)
        if (decision.refused === undefined && !decision.commands.some(clusterCall)) {
          const rows = yield* dispatchRows
          yield* stored(rows.writeAnswer(row, decision, yield* now, { claim: "keep", modified: true }))
        }
        return { row, decision }
      })
    )
    if (decided === undefined) return yield* Effect.fail(notFound(id))
    const { row, decision } = decided
    if (decision.refused !== undefined) return yield* notControllable(action, row)
    const control = yield* Control
    const call = decision.commands.find(clusterCall)
    if (call !== undefined) {
      if (control === undefined || row.key === null) return yield* notControllable(action, row)
      const key = row.key
      // A failure to read the queue's backend is the service's, not the request's: a defect, answered 500.
      const done = yield* Effect.orDie(control.transitionEffect(row.queue, key, call.type))
      if (done.kind !== "ok") {
        const error = done.kind === "error" ? done.error._tag : "Abandoned"
        const reasons = done.kind === "error" ? done.error.reasons : [done.reason]
        return yield* Effect.fail(refusal(new ClusterActionFailed({ action, job: row.id, error, reasons })))
      }
      // Status sync may have moved the job meanwhile (queued -> started): the answer is the machine's on the job as
      // it is now, and is dropped only when the job left the dispatch state the call was for (it ended, or was cancelled).
      yield* transaction(
        Effect.gen(function* () {
          const rows = yield* dispatchRows
          const current = yield* stored(rows.lock(row.id))
          if (Option.isNone(current) || current.value.dispatchState !== row.dispatchState) return
          const fed = step(stateOf(current.value), { type: call.type === "hold" ? "holdOk" : "releaseOk" }, yield* machineInput)
          yield* stored(rows.writeAnswer(current.value, fed, yield* now, { claim: "keep" }))
        })
      )
    }
    if (action === "cancel") control?.wake()
    return yield* Effect.flatMap(findJob(id), jobAnswer)
  })

/** Cancel, hold, release and re-run. */
export const jobControlRoutes = [
  route(JobsGroup, "cancel", { handle: ({ params }) => act(params.id, "cancel") }),
  route(JobsGroup, "hold", { handle: ({ params }) => act(params.id, "hold") }),
  route(JobsGroup, "release", { handle: ({ params }) => act(params.id, "release") }),
  route(JobsGroup, "rerun", {
    handle: ({ params }) =>
      transaction(
        Effect.gen(function* () {
          const { job } = yield* findJob(params.id)
          // A stored job carries every field of the request it was accepted from, frozen at creation.
          const accepted: AcceptedJob = job
          const store = yield* jobs
          const created = yield* stored(store.insert(ownerOf(yield* Caller), accepted, yield* now, job.id))
          return Option.isSome(created) ? yield* jobAnswer(created.value) : yield* Effect.fail(notFound(job.id))
        })
      )
  })
]
