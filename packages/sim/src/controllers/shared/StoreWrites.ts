// Controllers write through the SystemClient and carry on with the stored result. A refused write (for
// instance a conflict with another writer) is simply retried on the next clock step, as a requeue would.
import type { KubeObject, SystemClient } from "../../Api.ts"

const stored = (response: { readonly code: number; readonly body: unknown }): KubeObject | undefined =>
  response.code < 300 ? (response.body as KubeObject) : undefined

/** Creates `object`; the stored object, or undefined when the create was refused. */
export const createObject = (system: SystemClient, resource: string, object: KubeObject): KubeObject | undefined =>
  stored(system.create(resource, object))

/** Updates the main resource; the stored object, or undefined when refused. */
export const updateObject = (system: SystemClient, resource: string, object: KubeObject): KubeObject | undefined =>
  stored(system.update(resource, object))

/** Updates the status subresource; the stored object, or undefined when refused. */
export const updateStatus = (system: SystemClient, resource: string, object: KubeObject): KubeObject | undefined =>
  stored(system.updateStatus(resource, object))
