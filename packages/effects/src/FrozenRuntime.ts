// The runtime a submitted job runs on: its copy, "copied verbatim and never updated, so a later edit to
// the source does not change a job already submitted". A retry whose source runtime was edited, deleted or
// dropped from the config finds the job's TrainJob through it.
import { Effect, Result } from "effect"
import { type BackendConfig, type RuntimeRef, type StartRequest, isJobId, runtimeRefOf, trainJobName } from "@dispatch/render"
import { getIfExists } from "./ExistingObjects.ts"
import type { KubeResource } from "./KubeObjects.ts"
import { TrainJobs, TrainingRuntimes } from "./ResourceKind.ts"
import type { Cluster } from "./Cluster.ts"
import type { StartError } from "./StartErrors.ts"

/** The copy's single owner when it is a TrainJob of the copy's own name (as step 7 sets it). */
export const ownerOfItsName = (copy: KubeResource): { readonly uid: string } | undefined => {
  const owners = copy.metadata.ownerReferences
  if (owners?.length !== 1) return undefined
  const owner = owners[0]!
  return owner.kind === "TrainJob" && owner.name === copy.metadata.name && owner.uid !== undefined ? { uid: owner.uid } : undefined
}

/** A job's frozen runtime: the request's reference and the copy that the live TrainJob of the request's
 * name owns. Undefined when there is no such pair (no copy, no owner, the owner gone or going). */
export const frozenRuntime = (
  config: BackendConfig,
  request: StartRequest
): Effect.Effect<{ readonly ref: RuntimeRef; readonly object: KubeResource } | undefined, StartError, Cluster> =>
  Effect.gen(function* () {
    const ref = runtimeRefOf(request)
    if (Result.isFailure(ref) || !isJobId(request.job)) return undefined
    const key = { namespace: config.namespace, name: trainJobName(request.job, request.submission) }
    const copy = yield* getIfExists(TrainingRuntimes, key)
    const owner = copy === undefined || copy.metadata.deletionTimestamp !== undefined ? undefined : ownerOfItsName(copy)
    if (copy === undefined || owner === undefined) return undefined
    const job = yield* getIfExists(TrainJobs, key)
    if (job === undefined || job.metadata.uid !== owner.uid || job.metadata.deletionTimestamp !== undefined) return undefined
    return { ref: ref.success, object: copy }
  })

/** The config a frozen runtime is rendered under: its reference counts as configured, since the job was
 * submitted while it was. */
export const configListing = (config: BackendConfig, ref: RuntimeRef): BackendConfig =>
  config.runtimes.some((r) => r.kind === ref.kind && r.name === ref.name) ? config : { ...config, runtimes: [...config.runtimes, ref] }
