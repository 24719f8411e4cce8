import { hold, release } from "@dispatch/effects"
import { Effect, Result } from "effect"
import type { SqlClient } from "effect/sql"
import type { ClusterRun } from "./ClusterRuntime.ts"
import { backendOf, readGate, type DispatchContext } from "./DispatchContext.ts"
import { dispatchLeases } from "../store/DispatchLeases.ts"
import { launchedAnyway } from "./LaunchCheck.ts"

/** What the job endpoints ask of the dispatcher, as Effects they run in the request's fiber: a Hold or Release of
 * a job's TrainJob, and an early Stop pass. */
export interface JobControlEffects {
  /** Holds or releases the TrainJob of the job with this JobID on its queue's backend; fails with what the
   * database threw. */
  readonly transitionEffect: (queue: number, jobKey: string, which: "hold" | "release") => Effect.Effect<ClusterRun<unknown>, unknown, SqlClient.SqlClient>
  /** Asks the dispatcher to stop cancelled and deleted jobs now rather than at its next pass. */
  readonly wake: () => void
}

/** The job control the service is given: the dispatcher's own, or one of a caller's (a test's scripted one). */
export type JobControl = JobControlEffects

/** Holds or releases the TrainJob of the job with this JobID on its queue's backend; fails with what the database threw. */
export const transitionEffect = (context: DispatchContext, queue: number, jobKey: string, which: "hold" | "release"): Effect.Effect<ClusterRun<unknown>, unknown, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const config = (yield* Effect.flatMap(dispatchLeases, (leases) => leases.queueConfigs([queue]))).get(queue)
    const backend = backendOf(config, yield* readGate(queue))
    if (Result.isFailure(backend)) return { kind: "abandoned", reason: backend.failure.join("; ") } as const
    const key = { job: jobKey, submission: 1 }
    if (which === "hold") return yield* context.cluster.run(hold(backend.success, key))
    const released = yield* context.cluster.run(release(backend.success, key))
    if (released.kind === "error" && (yield* launchedAnyway(context.cluster, backend.success, key, released.error))) return { kind: "ok", value: undefined } as const
    return released
  })

/** The job control of a dispatcher context; `wake` starts a pass. */
export const jobControl = (context: DispatchContext, wake: () => void): JobControlEffects => ({
  transitionEffect: (queue, jobKey, which) => transitionEffect(context, queue, jobKey, which),
  wake
})
