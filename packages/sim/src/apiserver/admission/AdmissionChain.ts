// Runs the registered admission webhooks of a resource in order, each seeing the previous one's
// object, and re-runs schema validation on what they return when they changed it (mutations must still be
// valid; what went in was validated already).
import type { ApiResponse, KubeObject } from "../../Api.ts"
import type { Kind } from "../../kinds/Kind.ts"
import { jsonClone, jsonEqual } from "../store/JsonValue.ts"
import type { ServerContext } from "../store/ServerContext.ts"
import { invalid, webhookDenied } from "../StatusErrors.ts"
import { validate } from "../validation/Validation.ts"

/** Admits an object on create or update: the object to store, or the answer refusing it. */
export const admit = (
  context: ServerContext,
  resource: Kind,
  operation: "create" | "update",
  object: KubeObject,
  old: KubeObject | undefined,
  name: string
): { readonly object: KubeObject } | { readonly refused: ApiResponse } => {
  let current = object
  let changed = false
  for (const admission of context.admissions()) {
    if (admission.resource !== resource.plural) continue
    const own = admission.readOnly === true
    const result = admission.admit(operation, own ? current : jsonClone(current), old === undefined || own ? old : jsonClone(old), context.system())
    if ("denied" in result) return { refused: webhookDenied(resource, name, admission.name, result.denied) }
    changed ||= !jsonEqual(result.object, current)
    current = result.object
  }
  if (!changed) return { object: current }
  // What went in passed validation (it is only ever admitted then): parts the webhooks kept need no second look.
  const errors = validate(context.kinds, resource, current, old, object)
  return errors.length > 0 ? { refused: invalid(resource, name, errors) } : { object: current }
}
