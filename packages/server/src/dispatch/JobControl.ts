import { hold, release } from "@dispatch/effects"
import { Result } from "effect"
import type { ClusterRun } from "./ClusterRuntime.ts"
import { backendOf, type DispatchContext } from "./DispatchContext.ts"
import { queueConfigs, readGate } from "../store/DispatchStore.ts"
import { launchedAnyway } from "./LaunchCheck.ts"

/** What the job endpoints ask of the dispatcher: a Hold or Release of a job's TrainJob, and an early Stop pass. */
export interface JobControl {
  /** Holds or releases the TrainJob of the job with this JobID on its queue's backend. */
  readonly transition: (queue: number, jobKey: string, which: "hold" | "release") => Promise<ClusterRun<unknown>>
  /** Asks the dispatcher to stop cancelled and deleted jobs now rather than at its next pass. */
  readonly wake: () => void
}

/** The job control of a dispatcher context; `wake` starts a pass. */
export const jobControl = (context: DispatchContext, wake: () => void): JobControl => ({
  transition: async (queue, jobKey, which) => {
    const config = (await queueConfigs(context.db, [queue])).get(queue)
    const backend = backendOf(config, await readGate(context.db, queue))
    if (Result.isFailure(backend)) return { kind: "abandoned", reason: backend.failure.join("; ") }
    const key = { job: jobKey, submission: 1 }
    if (which === "hold") return context.cluster.run(hold(backend.success, key))
    const released = await context.cluster.run(release(backend.success, key))
    if (released.kind === "error" && (await launchedAnyway(context.cluster, backend.success, key, released.error))) return { kind: "ok", value: undefined }
    return released
  },
  wake
})
