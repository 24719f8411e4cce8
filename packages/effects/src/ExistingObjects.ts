// Reading and deleting one object where its absence is an answer, not a failure.
import { Effect } from "effect"
import { type BackendConfig, type RuntimeRef } from "@dispatch/render"
import { Cluster } from "./Cluster.ts"
import type { ClusterError } from "./ClusterError.ts"
import type { KubeResource } from "./KubeObjects.ts"
import { ClusterTrainingRuntimes, type ObjectKey, type ResourceKind, TrainingRuntimes } from "./ResourceKind.ts"
import { readFailure } from "./StartFailure.ts"
import type { StartError } from "./StartErrors.ts"

/** Reads an object, or undefined when it does not exist; any other failure is a read failure. */
export const getIfExists = (kind: ResourceKind, key: ObjectKey): Effect.Effect<KubeResource | undefined, StartError, Cluster> =>
  Effect.flatMap(Cluster, (cluster) =>
    cluster.get(kind, key).pipe(Effect.catchTag("ClusterError", (e) => (e.reason === "NotFound" ? Effect.succeed(undefined) : Effect.fail(readFailure(e)))))
  )

/** Reads the runtime a RuntimeRef names (namespaced in the config's namespace, or cluster-scoped). */
export const getRuntimeIfExists = (config: BackendConfig, ref: RuntimeRef): Effect.Effect<KubeResource | undefined, StartError, Cluster> =>
  ref.kind === "TrainingRuntime"
    ? getIfExists(TrainingRuntimes, { namespace: config.namespace, name: ref.name })
    : getIfExists(ClusterTrainingRuntimes, { name: ref.name })

/** Deletes an object in the background, with a UID precondition when one is known; already gone is done. */
export const deleteIfExists = (kind: ResourceKind, key: ObjectKey, uid: string | undefined): Effect.Effect<void, ClusterError, Cluster> =>
  Effect.flatMap(Cluster, (cluster) =>
    cluster
      .delete(kind, key, { propagation: "Background", ...(uid === undefined ? {} : { preconditions: { uid } }) })
      .pipe(Effect.catchTag("ClusterError", (e) => (e.reason === "NotFound" ? Effect.void : Effect.fail(e))))
  )
