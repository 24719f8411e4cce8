import { find, type Backend, type JobKey, type StartError } from "@dispatch/effects"
import type { ClusterRuntime } from "./ClusterRuntime.ts"

// Open and Release verify by reading back, and refuse a TrainJob that has finished. A short run can end between
// their write and that read, so a refusal does not mean the job never left its gate: Find tells them apart.
/** True when an Open or Release that failed with `error` nevertheless let the job go: Find sees it queued, running
 * or finished. */
export const launchedAnyway = async (cluster: ClusterRuntime, backend: Backend, key: JobKey, error: StartError): Promise<boolean> => {
  if (error._tag !== "ErrRejected") return false
  const found = await cluster.run(find(backend, key))
  return found.kind === "ok" && ["Queued", "Running", "Succeeded", "Failed"].includes(found.value.state)
}
