import { find, type Backend, type JobKey, type StartError } from "@dispatch/effects"
import { Effect } from "effect"
import type { ClusterRuntime } from "./ClusterRuntime.ts"

// Open and Release verify by reading back, and refuse a TrainJob that has finished. A short run can end between
// their write and that read, so a refusal does not mean the job never left its gate: Find tells them apart.
/** True when an Open or Release that failed with `error` nevertheless let the job go: Find sees it queued, running
 * or finished. */
export const launchedAnyway = (cluster: ClusterRuntime, backend: Backend, key: JobKey, error: StartError): Effect.Effect<boolean> =>
  error._tag !== "ErrRejected"
    ? Effect.succeed(false)
    : Effect.map(cluster.run(find(backend, key)), (found) => found.kind === "ok" && ["Queued", "Running", "Succeeded", "Failed"].includes(found.value.state))
