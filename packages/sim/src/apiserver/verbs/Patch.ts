// The patch verb: JSON merge patch and JSON patch on the stored object, then the update rules; server-side
// apply has its own verb (Apply.ts). Strategic merge patch is refused with 415 for custom resources as the
// real server does; a built-in kind takes it (StrategicMerge.ts).
import type { ApiResponse, FieldValidation, PatchType } from "../../Api.ts"
import { isBuiltIn, type Kind } from "../../kinds/Kind.ts"
import { isJsonObject, jsonClone } from "../store/JsonValue.ts"
import { jsonPatch } from "../patches/JsonPatch.ts"
import { mergePatch } from "../patches/MergePatch.ts"
import { strategicMerge } from "../patches/StrategicMerge.ts"
import { present, type ServerContext } from "../store/ServerContext.ts"
import { apiVersionFor } from "../ResourceNames.ts"
import { badRequest, notFound, patchNotApplicable, unsupportedMediaType } from "../StatusErrors.ts"
import { apply } from "./Apply.ts"
import { commitUpdate } from "./Update.ts"

/** How a patch is asked for. */
export interface PatchOptions {
  readonly version: string
  readonly dryRun: boolean
  readonly subresource?: "status" | undefined
  readonly patchType: PatchType
  readonly fieldValidation?: FieldValidation | undefined
  /** Who the write is recorded as in managedFields (required for apply). */
  readonly manager?: string | undefined
  /** For apply: take fields other managers own. */
  readonly force?: boolean | undefined
}

const patched = (resource: Kind, current: unknown, patch: unknown, patchType: PatchType): { value: unknown } | { refused: ApiResponse } => {
  switch (patchType) {
    case "json": {
      const result = jsonPatch(current, patch)
      if (result.ok) return { value: result.value }
      return { refused: result.error._tag === "MalformedPatch" ? badRequest(result.error.message) : patchNotApplicable(result.error.message) }
    }
    case "strategic":
      if (!isBuiltIn(resource)) return { refused: unsupportedMediaType("application/strategic-merge-patch+json") }
      return isJsonObject(patch) ? { value: strategicMerge(current, patch, resource.fields) } : { refused: badRequest("a strategic merge patch must be a JSON object") }
    case "merge":
      return isJsonObject(patch) ? { value: mergePatch(current, patch) } : { refused: badRequest("a merge patch must be a JSON object") }
    case "apply":
      // Served by the apply verb before a patch is ever computed.
      return { refused: unsupportedMediaType("application/apply-patch+yaml") }
  }
}

/** Patches a stored object (or its status). */
export const patch = (
  context: ServerContext,
  resource: Kind,
  namespace: string | undefined,
  name: string,
  body: unknown,
  options: PatchOptions
): ApiResponse => {
  if (options.patchType === "apply") {
    const { patchType: _apply, manager, force, ...rest } = options
    return apply(context, resource, namespace, name, body, { ...rest, manager: manager ?? "", force: force === true })
  }
  const old = context.store.get(resource.plural, resource.namespaced ? namespace : undefined, name)
  if (old === undefined) return notFound(resource, name)
  // The patch is copied, so the result shares nothing with the caller. A merge patch never changes its
  // target: it may start from the stored (frozen) object itself, and what the patch leaves alone stays
  // shared with it, so the update checks, freezes and compares only what the patch changed. A JSON patch
  // works on a copy.
  const current = options.patchType === "json" ? present(resource, old, options.version) : { ...old, apiVersion: apiVersionFor(resource, options.version) }
  const result = patched(resource, current, jsonClone(body), options.patchType)
  if ("refused" in result) return result.refused
  if (!isJsonObject(result.value)) return patchNotApplicable("the patched document is not a JSON object")
  return commitUpdate(context, resource, old, result.value, {
    version: options.version,
    dryRun: options.dryRun,
    subresource: options.subresource,
    requireResourceVersion: false,
    fieldValidation: options.fieldValidation,
    manager: options.manager
  })
}
