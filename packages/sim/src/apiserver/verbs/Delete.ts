// The delete verb: preconditions on uid and resourceVersion, propagation policies (Background by
// default; Foreground and Orphan become the garbage collector's finalizers), objects with finalizers
// only marked, and namespaces marked Terminating for the namespace lifecycle to empty.
import type { ApiResponse, KubeObject, PropagationPolicy, Resource } from "../../Api.ts"
import { isJsonObject } from "../store/JsonValue.ts"
import { finalizersOf, identityOf, isDeleting, metadataOf, present, type ServerContext, timestamp } from "../store/ServerContext.ts"
import { badRequest, conflict, forbidden, notFound } from "../StatusErrors.ts"
import { tooLargeToStore } from "../store/StoredSize.ts"

/** The finalizer the garbage collector holds while a Foreground delete waits for dependents. */
export const foregroundFinalizer = "foregroundDeletion"
/** The finalizer the garbage collector holds while an Orphan delete releases dependents. */
export const orphanFinalizer = "orphan"
/** Namespaces that may never be deleted. */
export const undeletableNamespaces: ReadonlyArray<string> = ["default"]

/** How a delete is asked for. */
export interface DeleteOptions {
  readonly version: string
  readonly dryRun: boolean
  readonly propagationPolicy?: PropagationPolicy | undefined
  /** The DeleteOptions body, for preconditions and a policy given there. */
  readonly body?: unknown
}

const policyFrom = (options: DeleteOptions): PropagationPolicy | string => {
  if (options.propagationPolicy !== undefined) return options.propagationPolicy
  const body = isJsonObject(options.body) ? options.body : {}
  if (typeof body["propagationPolicy"] === "string") return body["propagationPolicy"]
  return body["orphanDependents"] === true ? "Orphan" : "Background"
}

const preconditionFailure = (resource: Resource, stored: KubeObject, body: unknown): ApiResponse | undefined => {
  const pre = isJsonObject(body) && isJsonObject(body["preconditions"]) ? body["preconditions"] : {}
  const meta = metadataOf(stored)
  const { name } = identityOf(stored)
  if (typeof pre["uid"] === "string" && pre["uid"] !== meta["uid"]) {
    return conflict(resource, name, `Precondition failed: UID in precondition: ${pre["uid"]}, UID in object meta: ${String(meta["uid"])}`)
  }
  if (typeof pre["resourceVersion"] === "string" && pre["resourceVersion"] !== meta["resourceVersion"]) {
    return conflict(resource, name, `Precondition failed: ResourceVersion in precondition: ${pre["resourceVersion"]}, ResourceVersion in object meta: ${String(meta["resourceVersion"])}`)
  }
  return undefined
}

// Marks an object as being deleted: the timestamp, a zero grace period and a generation bump, as
// the real registry does the first time.
const marked = (context: ServerContext, stored: KubeObject, finalizers: ReadonlyArray<string>): KubeObject => {
  const meta = metadataOf(stored)
  const first = !isDeleting(stored)
  const generation = typeof meta["generation"] === "number" ? meta["generation"] : 0
  return {
    ...stored,
    metadata: {
      ...meta,
      finalizers,
      ...(first ? { deletionTimestamp: timestamp(context.now()), deletionGracePeriodSeconds: 0, generation: generation + 1 } : {})
    },
    ...(stored.kind === "Namespace" ? { status: { ...(isJsonObject(stored["status"]) ? stored["status"] : {}), phase: "Terminating" } } : {})
  }
}

/** Deletes (or marks for deletion) a stored object. */
export const deleteObject = (
  context: ServerContext,
  resource: Resource,
  namespace: string | undefined,
  name: string,
  options: DeleteOptions
): ApiResponse => {
  const ns = resource.namespaced ? namespace : undefined
  const stored = context.store.get(resource.plural, ns, name)
  if (stored === undefined) return notFound(resource, name)
  const failed = preconditionFailure(resource, stored, options.body)
  if (failed !== undefined) return failed
  const policy = policyFrom(options)
  if (policy !== "Background" && policy !== "Foreground" && policy !== "Orphan") {
    return badRequest(`propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`)
  }
  if (resource.plural === "namespaces" && undeletableNamespaces.includes(name)) {
    return forbidden(resource, name, `namespaces "${name}" is forbidden: this namespace may not be deleted`)
  }
  const gcFinalizer = policy === "Foreground" ? [foregroundFinalizer] : policy === "Orphan" ? [orphanFinalizer] : []
  const existing = finalizersOf(stored)
  const finalizers = [...existing, ...gcFinalizer.filter((f) => !existing.includes(f))]
  // A namespace always waits for the namespace lifecycle to empty it.
  const waits = finalizers.length > 0 || resource.plural === "namespaces"
  if (!waits) {
    if (options.dryRun) return { code: 200, body: present(resource, stored, options.version) }
    const removed = context.store.remove(resource.plural, ns, name)
    return { code: 200, body: present(resource, removed ?? stored, options.version) }
  }
  const next = marked(context, stored, finalizers)
  if (options.dryRun) return { code: 200, body: present(resource, next, options.version) }
  const unchanged = isDeleting(stored) && finalizers.length === existing.length
  if (unchanged) return { code: 200, body: present(resource, stored, options.version) }
  return tooLargeToStore(next) ?? { code: 200, body: present(resource, context.store.write(resource.plural, next), options.version) }
}
