// The controllers' client: the same verbs as a REST client (validation and admission included) but
// with no auth and no fault plan, objects addressed by their own metadata. Reads hand out either
// copies (for callers outside the simulator, who may edit what they get) or the store's own frozen
// objects (for the controllers and webhooks, which only read them and run at every clock step).
import type { ApiResponse, KubeObject, PropagationPolicy, Resource, SystemClient } from "../../Api.ts"
import { create } from "./Create.ts"
import { deleteObject } from "./Delete.ts"
import { jsonClone } from "../store/JsonValue.ts"
import { matchesLabels, parseLabelSelector } from "../lists/LabelSelector.ts"
import { groupOf, versionOf } from "../ResourceNames.ts"
import type { Kind } from "../../kinds/Kind.ts"
import { handedOut, identityOf, metadataOf, type ServerContext } from "../store/ServerContext.ts"
import { pathNotFound } from "../StatusErrors.ts"
import { update } from "./Update.ts"
import { simulatorManager } from "../managed/FieldManagers.ts"

/** The version an object names, when served; otherwise the resource's preferred one. */
export const servedVersion = (resource: Resource, object: KubeObject): string => {
  const apiVersion = typeof object.apiVersion === "string" ? object.apiVersion : ""
  const version = versionOf(apiVersion)
  return groupOf(apiVersion) === resource.group && resource.versions.includes(version) ? version : (resource.versions[0] ?? "")
}

/** The namespace an object is written to: its own, "default" when it names none, none if cluster-scoped. */
export const targetNamespace = (resource: Resource, object: unknown): string | undefined =>
  resource.namespaced ? (identityOf(object).namespace ?? "default") : undefined

const on = (context: ServerContext, plural: string, call: (resource: Kind) => ApiResponse): ApiResponse => {
  const resource = context.kinds.byResource(plural)
  return resource === undefined ? pathNotFound() : call(resource)
}

/** An answer whose body is the caller's own copy. */
export const answerHandedOut = (response: ApiResponse): ApiResponse => ({ ...response, body: handedOut(response.body) })

/** What reads hand out: a copy of the stored object, or the frozen stored object itself (whose client's writes keep what they are handed). */
export type ReadMode = "copy" | "snapshot"

/** A SystemClient over the simulator's store, whose writes are recorded in managedFields as `manager`'s. */
export const systemClient = (context: ServerContext, mode: ReadMode, manager: string = simulatorManager): SystemClient => {
  const handOut: (object: KubeObject) => KubeObject = mode === "copy" ? jsonClone : (object) => object
  // The controllers and webhooks build each object they write for that write alone and keep no hold on
  // it: the store keeps (and freezes) it as it is, where a caller outside the simulator gets it copied.
  const handedOver = mode === "snapshot"
  // A write answers with the stored object's frozen parts (present): a copy for callers who may edit it.
  const write = (plural: string, call: (resource: Kind) => ApiResponse): ApiResponse => (mode === "copy" ? answerHandedOut(on(context, plural, call)) : on(context, plural, call))
  return {
    now: () => context.now(),
    get: (resource, namespace, name) => {
      const r = context.kinds.byResource(resource)
      const stored = r === undefined ? undefined : context.store.get(resource, r.namespaced ? namespace : undefined, name)
      return stored === undefined ? undefined : handOut(stored)
    },
    list: (resource, namespace, labelSelector) => {
      const selector = parseLabelSelector(labelSelector ?? "")
      const r = context.kinds.byResource(resource)
      if (!selector.ok || r === undefined) return []
      const stored = context.store.list(resource, r.namespaced ? namespace : undefined)
      const selected = selector.selector.length === 0 ? stored : stored.filter((o) => matchesLabels(selector.selector, (metadataOf(o)["labels"] ?? {}) as Record<string, string>))
      return mode === "copy" ? selected.map(handOut) : selected
    },
    create: (resource, object) => write(resource, (r) => create(context, r, object, { namespace: targetNamespace(r, object), version: servedVersion(r, object), dryRun: false, manager, handedOver })),
    update: (resource, object) =>
      write(resource, (r) => update(context, r, targetNamespace(r, object), identityOf(object).name, object, { version: servedVersion(r, object), dryRun: false, manager, handedOver })),
    updateStatus: (resource, object) =>
      write(resource, (r) =>
        update(context, r, targetNamespace(r, object), identityOf(object).name, object, { version: servedVersion(r, object), dryRun: false, subresource: "status", manager, handedOver })
      ),
    delete: (resource, namespace, name, policy?: PropagationPolicy) =>
      write(resource, (r) => deleteObject(context, r, namespace, name, { version: r.versions[0] ?? "", dryRun: false, propagationPolicy: policy }))
  }
}
