// Routes one decoded request to its verb, after checking that the verb makes sense on that path
// (a name where one is needed, a namespace for namespaced objects, status only where it exists).
import type { ApiRequest, ApiResponse } from "../../Api.ts"
import type { Kind } from "../../kinds/Kind.ts"
import { create } from "./Create.ts"
import { deleteObject } from "./Delete.ts"
import { patch } from "./Patch.ts"
import { get, list } from "./Read.ts"
import type { ServerContext } from "../store/ServerContext.ts"
import { methodNotAllowed, optionsInvalid, pathNotFound } from "../StatusErrors.ts"
import { managerOf, writeOptionErrors } from "../managed/FieldManagers.ts"
import { nestsTooDeeply, tooDeeplyNested } from "../validation/Nesting.ts"
import { parseResourceVersion } from "../store/ResourceVersion.ts"
import { update } from "./Update.ts"

/** Serves every verb but watch. */
export const serveVerb = (context: ServerContext, resource: Kind, request: ApiRequest): ApiResponse => {
  const namespace = resource.namespaced ? request.namespace : undefined
  if (resource.namespaced && namespace === undefined && request.verb !== "list") return pathNotFound()
  if (request.subresource === "status" && !resource.hasStatus) return pathNotFound()
  // A pod's log is read, never written: its get reads the pod.
  if (request.subresource === "log" && (resource.plural !== "pods" || request.verb !== "get")) return methodNotAllowed()
  const subresource = request.subresource === "status" ? "status" : undefined
  if (request.body !== undefined && nestsTooDeeply(request.body)) return tooDeeplyNested()
  // Reads serve the current state whatever revision is named, but a malformed one is refused as a watch refuses it.
  const resourceVersion = request.verb === "get" || request.verb === "list" ? parseResourceVersion(request.resourceVersion) : undefined
  if (resourceVersion?.ok === false) return resourceVersion.response
  const dryRun = request.dryRun === true
  const { version, name, fieldValidation } = request
  const writes = request.verb === "create" || request.verb === "update" || request.verb === "patch"
  const optionErrors = writes ? writeOptionErrors({ fieldManager: request.fieldManager, force: request.verb === "patch" ? request.force : undefined, apply: request.patchType === "apply" && request.verb === "patch" }) : []
  if (optionErrors.length > 0) return optionsInvalid(request.verb === "create" ? "CreateOptions" : request.verb === "update" ? "UpdateOptions" : "PatchOptions", optionErrors)
  const manager = managerOf(request.fieldManager, request.userAgent)
  switch (request.verb) {
    case "create":
      return request.subresource !== undefined || name !== undefined ? methodNotAllowed() : create(context, resource, request.body, { namespace, version, dryRun, fieldValidation, manager })
    case "get":
      return name === undefined ? methodNotAllowed() : get(context, resource, namespace, name, version)
    case "list":
      return name !== undefined ? methodNotAllowed() : list(context, resource, { ...request, namespace })
    case "update":
      return name === undefined ? methodNotAllowed() : update(context, resource, namespace, name, request.body, { version, dryRun, subresource, fieldValidation, manager })
    case "patch":
      return name === undefined
        ? methodNotAllowed()
        : patch(context, resource, namespace, name, request.body, { version, dryRun, subresource, patchType: request.patchType ?? "json", fieldValidation, manager, force: request.force })
    case "delete":
      return name === undefined || request.subresource !== undefined
        ? methodNotAllowed()
        : deleteObject(context, resource, namespace, name, { version, dryRun, propagationPolicy: request.propagationPolicy, body: request.body })
    case "watch":
      return methodNotAllowed()
  }
}
