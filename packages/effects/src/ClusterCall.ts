import { Effect, Option } from "effect"
import { ClusterError } from "./ClusterError.ts"
import type { ClusterShape, JsonObject } from "./Cluster.ts"
import { deleteOptionsBody, withPrecondition } from "./Cluster.ts"
import { decodeKubeResource, type KubeResource } from "./KubeObjects.ts"
import { describeCall, type ResourceKind } from "./ResourceKind.ts"

/** One API call, independent of how it travels. */
export interface ClusterCall {
  readonly verb: "get" | "list" | "create" | "patch" | "delete"
  readonly kind: ResourceKind
  readonly namespace?: string | undefined
  readonly name?: string | undefined
  readonly body?: JsonObject
  readonly labelSelector?: string
  readonly status?: boolean
  /** `create trainjobs default/x`, for errors and logs. */
  readonly description: string
}

/** Sends one call and yields the body of a 2xx answer, or the ClusterError the answer stands for. */
export type Transport = (call: ClusterCall) => Effect.Effect<unknown, ClusterError>

/** A 2xx answer that is not the Kubernetes object (or list) the call asked for. */
export const malformed = (call: ClusterCall): ClusterError =>
  new ClusterError({
    reason: "ServerError",
    call: call.description,
    status: { code: 200, reason: "Malformed", message: "the answer is not a Kubernetes object", causes: [] }
  })

const asObject = (call: ClusterCall) => (body: unknown): Effect.Effect<KubeResource, ClusterError> =>
  Option.match(decodeKubeResource(body), { onNone: () => Effect.fail(malformed(call)), onSome: Effect.succeed })

// A real API server leaves apiVersion and kind off the items of a built-in kind's list (a PodList's pods):
// they are the list's, and are filled in before each item is read as an object.
const withKind = (kind: ResourceKind, item: unknown): unknown => {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return item
  const apiVersion = kind.group === "" ? kind.version : `${kind.group}/${kind.version}`
  return { apiVersion, kind: kind.kind, ...(item as Record<string, unknown>) }
}

const asItems = (call: ClusterCall) => (body: unknown): Effect.Effect<ReadonlyArray<KubeResource>, ClusterError> => {
  const items = typeof body === "object" && body !== null ? (body as Record<string, unknown>)["items"] : undefined
  if (!Array.isArray(items)) return Effect.fail(malformed(call))
  return Effect.forEach(items, (item) => asObject(call)(withKind(call.kind, item)))
}

const namespaceOf = (kind: ResourceKind, object: JsonObject): string | undefined => {
  const metadata = object["metadata"] as Record<string, unknown> | undefined
  return kind.namespaced && typeof metadata?.["namespace"] === "string" ? metadata["namespace"] : undefined
}

const nameOf = (object: JsonObject): string | undefined => {
  const metadata = object["metadata"] as Record<string, unknown> | undefined
  return typeof metadata?.["name"] === "string" ? metadata["name"] : undefined
}

/** Builds the Cluster operations over a transport; both layers share it, so they decode alike. Pod logs
 * and the clock are each layer's own. */
export const clusterOverTransport = (send: Transport, own: Pick<ClusterShape, "podLog" | "now">): ClusterShape => ({
  ...own,
  get: (kind, key) => {
    const call: ClusterCall = { verb: "get", kind, namespace: key.namespace, name: key.name, description: describeCall("get", kind, key) }
    return Effect.flatMap(send(call), asObject(call))
  },
  list: (kind, listed, labelSelector) => {
    const namespace = kind.namespaced ? listed : undefined
    const call: ClusterCall = { verb: "list", kind, namespace, labelSelector, description: `${describeCall("list", kind, { namespace })}${labelSelector === "" ? "" : ` -l ${labelSelector}`}` }
    return Effect.flatMap(send(call), asItems(call))
  },
  create: (kind, object) => {
    const namespace = namespaceOf(kind, object)
    const name = nameOf(object)
    const call: ClusterCall = { verb: "create", kind, namespace, body: object, description: describeCall("create", kind, { namespace, name }) }
    return Effect.flatMap(send(call), asObject(call))
  },
  mergePatch: (kind, key, patch, options) => {
    const call: ClusterCall = {
      verb: "patch",
      kind,
      namespace: key.namespace,
      name: key.name,
      body: withPrecondition(patch, options?.resourceVersion),
      status: options?.status === true,
      description: describeCall(options?.status === true ? "patch status" : "patch", kind, key)
    }
    return Effect.flatMap(send(call), asObject(call))
  },
  delete: (kind, key, options) => {
    const call: ClusterCall = { verb: "delete", kind, namespace: key.namespace, name: key.name, body: deleteOptionsBody(options), description: describeCall("delete", kind, key) }
    return Effect.asVoid(send(call))
  }
})
