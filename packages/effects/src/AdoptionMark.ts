// How several Starts of one request at once keep each other's successes: the runtime copy is the object
// they agree on. An adopter marks the copy with the UID of the TrainJob it adopted (a write with the
// copy's resourceVersion as precondition) before it can return success; a creator that must stop its
// TrainJob first deletes the copy with the resourceVersion it last saw as precondition. The API server
// orders the two writes: whichever lands second fails on the precondition, so either the creator sees
// the mark and leaves the TrainJob, or the adopter finds the copy going and fails.
import { Effect } from "effect"
import type { BackendConfig, Manifests } from "@dispatch/render"
import { Cluster } from "./Cluster.ts"
import type { KubeResource } from "./KubeObjects.ts"
import { TrainingRuntimes } from "./ResourceKind.ts"
import { retryCall } from "./RetryPolicy.ts"

/** The copy's annotation naming the UID of the TrainJob a Start adopted. */
export const adoptionMark = (config: Pick<BackendConfig, "labelDomain">): string => `${config.labelDomain}/adopted-trainjob`

/** The copy carries the adoption mark for TrainJob `uid`. */
export const markedFor = (config: Pick<BackendConfig, "labelDomain">, copy: KubeResource, uid: string): boolean =>
  copy.metadata.annotations?.[adoptionMark(config)] === uid

/** What the creator's revocation found: the copy is gone or going, or belongs to another TrainJob of the
 * name (either way the TrainJob may be stopped), or an adopter marked it first (it must be left). */
export type Revocation = "revoked" | "adopted"

// A delete of the copy exactly as this Start last saw it: a copy that was replaced or has moved since is
// refused with a Conflict, never deleted.
const unchangedSince = (seen: KubeResource) => ({
  ...(seen.metadata.uid === undefined ? {} : { uid: seen.metadata.uid }),
  ...(seen.metadata.resourceVersion === undefined ? {} : { resourceVersion: seen.metadata.resourceVersion })
})

/** Deletes the copy unless an adopter of TrainJob `uid` marked it; `seen` is the copy as this Start last
 * saw it. A Conflict means the copy moved: read it and decide again (Trainer's finalizer moves it too).
 * Other passing faults are tried again in place (RetryPolicy). */
export const revokeCopy = (
  config: BackendConfig,
  manifests: Manifests,
  seen: KubeResource,
  uid: string,
  attempts = 3
): Effect.Effect<Revocation, ReadonlyArray<string>, Cluster> =>
  Effect.gen(function* () {
    if (markedFor(config, seen, uid)) return "adopted" as const
    if (seen.metadata.deletionTimestamp !== undefined) return "revoked" as const
    // Owned by another TrainJob of this name: that one replaced ours (names are unique), and runs on it.
    if ((seen.metadata.ownerReferences ?? []).some((o) => o.uid !== uid)) return "revoked" as const
    const cluster = yield* Cluster
    const key = { namespace: manifests.namespace, name: manifests.name }
    return yield* retryCall(cluster.delete(TrainingRuntimes, key, { propagation: "Background", preconditions: unchangedSince(seen) })).pipe(
      Effect.as("revoked" as const),
      Effect.catchTag("ClusterError", (e) => {
        if (e.reason === "NotFound") return Effect.succeed("revoked" as const)
        if (e.reason !== "Conflict" || attempts <= 1) return Effect.fail([`the runtime copy could not be deleted first: ${e.reasons.join("; ")}`])
        return retryCall(cluster.get(TrainingRuntimes, key)).pipe(
          Effect.matchEffect({
            onFailure: (read) => (read.reason === "NotFound" ? Effect.succeed("revoked" as const) : Effect.fail([`the runtime copy could not be read: ${read.reasons.join("; ")}`])),
            // Another copy of the name (the UID differs) was made by someone else: the TrainJob runs on it
            // now, and it is not this Start's to delete.
            onSuccess: (now) =>
              now.metadata.uid === seen.metadata.uid
                ? revokeCopy(config, manifests, now, uid, attempts - 1)
                : markedFor(config, now, uid)
                  ? Effect.succeed("adopted" as const)
                  : Effect.fail([`the runtime copy was replaced by another (uid ${now.metadata.uid ?? ""})`])
          })
        )
      })
    )
  })

/** Deletes a copy this Start created and no longer needs, unless something has come to use it: an owner
 * (another Start of the request created or adopted a TrainJob on it). The resourceVersion precondition
 * makes "unused" hold at the moment of the delete; a Conflict means the copy moved: read it, decide again.
 * Other passing faults are tried again in place (RetryPolicy). */
export const deleteUnusedCopy = (manifests: Manifests, seen: KubeResource, attempts = 3): Effect.Effect<"deleted" | "in-use", ReadonlyArray<string>, Cluster> =>
  Effect.gen(function* () {
    if (seen.metadata.deletionTimestamp !== undefined) return "deleted" as const
    if ((seen.metadata.ownerReferences ?? []).length > 0) return "in-use" as const
    const cluster = yield* Cluster
    const key = { namespace: manifests.namespace, name: manifests.name }
    return yield* retryCall(cluster.delete(TrainingRuntimes, key, { propagation: "Background", preconditions: unchangedSince(seen) })).pipe(
      Effect.as("deleted" as const),
      Effect.catchTag("ClusterError", (e) => {
        if (e.reason === "NotFound") return Effect.succeed("deleted" as const)
        if (e.reason !== "Conflict" || attempts <= 1) return Effect.fail(e.reasons)
        return retryCall(cluster.get(TrainingRuntimes, key)).pipe(
          Effect.matchEffect({
            onFailure: (read) => (read.reason === "NotFound" ? Effect.succeed("deleted" as const) : Effect.fail(read.reasons)),
            // A copy of another UID is someone else's: the one this Start created is gone.
            onSuccess: (now) => (now.metadata.uid === seen.metadata.uid ? deleteUnusedCopy(manifests, now, attempts - 1) : Effect.succeed("deleted" as const))
          })
        )
      })
    )
  })
