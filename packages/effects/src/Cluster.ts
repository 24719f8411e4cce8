import { Context, type Effect } from "effect"
import type { ClusterError } from "./ClusterError.ts"
import type { KubeResource } from "./KubeObjects.ts"
import type { ObjectKey, ResourceKind } from "./ResourceKind.ts"

/** A JSON object as sent to the API server. */
export type JsonObject = Readonly<Record<string, unknown>>

/** Conditions a delete must meet on the server, so it never removes an object re-created meanwhile. */
export interface DeletePreconditions {
  readonly uid?: string
  readonly resourceVersion?: string
}

/** How a delete is carried out. */
export interface DeleteOptions {
  readonly propagation?: "Background" | "Foreground" | "Orphan"
  readonly preconditions?: DeletePreconditions
}

/** How a merge patch is applied. */
export interface PatchOptions {
  /** Patch the status subresource instead of the main resource (Workload admission checks). */
  readonly status?: boolean
  /** Applied only if the object still has this resourceVersion; otherwise Conflict. */
  readonly resourceVersion?: string
}

/** How a pod's log is read, as `kubectl logs` takes it. */
export interface PodLogOptions {
  /** The container; absent: the pod's only one (a pod of several refuses). */
  readonly container?: string
  /** Keep reading as lines are written, until the container ends, the pod goes, or the effect is interrupted. */
  readonly follow?: boolean
  /** Only the last N lines written so far. */
  readonly tailLines?: number
  /** Only lines written in the last N seconds, by the cluster's clock. */
  readonly sinceSeconds?: number
  /** The log of the container's previous run (after a restart). */
  readonly previous?: boolean
}

/** The API calls dispatch makes (Start, the lifecycle, and the CLI's reads), and nothing else. */
export interface ClusterShape {
  /** Reads one object. */
  readonly get: (kind: ResourceKind, key: ObjectKey) => Effect.Effect<KubeResource, ClusterError>
  /** Lists a namespace's objects of a kind that match a label selector (Find, the Workload wait); a
   * cluster-scoped kind's are listed cluster-wide, whatever the namespace. */
  readonly list: (kind: ResourceKind, namespace: string, labelSelector: string) => Effect.Effect<ReadonlyArray<KubeResource>, ClusterError>
  /** Creates an object; the answer is the object as stored. */
  readonly create: (kind: ResourceKind, object: JsonObject) => Effect.Effect<KubeResource, ClusterError>
  /** Applies a JSON merge patch (owner references, spec.suspend, Workload annotations and admission checks). */
  readonly mergePatch: (
    kind: ResourceKind,
    key: ObjectKey,
    patch: JsonObject,
    options?: PatchOptions
  ) => Effect.Effect<KubeResource, ClusterError>
  /** Deletes an object, honouring propagation and preconditions. */
  readonly delete: (kind: ResourceKind, key: ObjectKey, options?: DeleteOptions) => Effect.Effect<void, ClusterError>
  /** Reads a pod's container log, calling `onLine` with each line (without its newline) as it arrives. */
  readonly podLog: (key: ObjectKey, options: PodLogOptions, onLine: (line: string) => void) => Effect.Effect<void, ClusterError>
  /** The cluster's notion of now, in ms since the epoch, as its timestamps are written: the simulator's
   * clock; for a real API server this machine's clock, as kubectl takes it. */
  readonly now: Effect.Effect<number>
}

/** The Kubernetes API as Start and the lifecycle use it. */
export class Cluster extends Context.Service<Cluster, ClusterShape>()("@dispatch/effects/Cluster") {}

/** The merge patch that also carries a resourceVersion precondition: the server refuses it with a 409 when
 * the object has changed since it was read. */
export const withPrecondition = (patch: JsonObject, resourceVersion: string | undefined): JsonObject => {
  if (resourceVersion === undefined) return patch
  const metadata = typeof patch["metadata"] === "object" && patch["metadata"] !== null ? (patch["metadata"] as JsonObject) : {}
  return { ...patch, metadata: { ...metadata, resourceVersion } }
}

/** The DeleteOptions body of a delete call. */
export const deleteOptionsBody = (options: DeleteOptions | undefined): JsonObject => ({
  apiVersion: "v1",
  kind: "DeleteOptions",
  ...(options?.propagation === undefined ? {} : { propagationPolicy: options.propagation }),
  ...(options?.preconditions === undefined ? {} : { preconditions: options.preconditions })
})
