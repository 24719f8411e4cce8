// Server-side apply (a PATCH of type application/apply-patch+yaml): the configuration is merged into the
// live object by the kinds' list types, its manager comes to own exactly the fields it sets, fields it
// applied before and no longer sets are removed unless another manager owns them, and changing another
// manager's field is a 409 conflict naming each one unless forced. A missing object is created.
import type { ApiResponse, FieldValidation, KubeObject } from "../../Api.ts"
import { isBuiltIn, type Kind } from "../../kinds/Kind.ts"
import { apiVersionFor } from "../ResourceNames.ts"
import { isJsonObject, jsonClone } from "../store/JsonValue.ts"
import { identityOf, metadataOf, type ServerContext, timestamp } from "../store/ServerContext.ts"
import { applyConflict, badRequest, notFound, unclassified } from "../StatusErrors.ts"
import { decodeFields, withWarnings } from "../validation/FieldValidation.ts"
import { mergeApplied, removePaths } from "../managed/ApplyMerge.ts"
import { difference, pathsOf, printPath, union } from "../managed/FieldSet.ts"
import { appliedEntries, entriesOf, type ManagedEntry, scoped, type Writer } from "../managed/ManagedFields.ts"
import { objectFieldSet } from "../managed/ObjectFields.ts"
import { undeclaredFields, undeclaredMessage } from "../managed/UndeclaredFields.ts"
import { checkTypeMeta, create } from "./Create.ts"
import { commitUpdate } from "./Update.ts"

/** How an apply is asked for. */
export interface ApplyOptions {
  readonly version: string
  readonly dryRun: boolean
  readonly subresource?: "status" | undefined
  readonly fieldValidation?: FieldValidation | undefined
  /** Required: who owns the configuration's fields. */
  readonly manager: string
  /** Take fields other managers own instead of answering 409. */
  readonly force: boolean
}

// The part of a configuration an apply through `subresource` sets: metadata (but never managedFields),
// spec and the rest on the main endpoint, status on /status.
const configPart = (resource: Kind, config: KubeObject, subresource: "status" | undefined): KubeObject => {
  const { managedFields: _ignored, ...metadata } = metadataOf(config)
  if (subresource === "status") return config["status"] === undefined ? {} : { status: config["status"] }
  const { status: _status, ...rest } = config
  return { ...(resource.hasStatus ? rest : config), metadata }
}

/** How the real server names an owner in a conflict: `"m"`, `"m" with subresource "status"`, `"m" using v1` for an Update. */
export const ownerName = (entry: ManagedEntry): string => {
  const named = `${JSON.stringify(entry.manager ?? "")}${entry.subresource === undefined ? "" : ` with subresource ${JSON.stringify(entry.subresource)}`}`
  return entry.operation === "Update" ? `${named} using ${entry.apiVersion}` : named
}

/** Applies a configuration to a stored object (or its status), creating the object when it does not exist. */
export const apply = (
  context: ServerContext,
  resource: Kind,
  namespace: string | undefined,
  name: string,
  body: unknown,
  options: ApplyOptions
): ApiResponse => {
  const sent = jsonClone(body)
  const typeProblem = checkTypeMeta(resource, sent)
  if (typeProblem !== undefined || !isJsonObject(sent)) return typeProblem ?? badRequest("invalid body")
  const identity = identityOf(sent)
  if (identity.name !== "" && identity.name !== name) return badRequest(`the name of the object (${identity.name}) does not match the name on the URL (${name})`)
  if (resource.namespaced && identity.namespace !== undefined && identity.namespace !== namespace) {
    return badRequest("the namespace of the provided object does not match the namespace sent on the request")
  }
  // A built-in kind's configuration is converted to its typed value first, whatever the fieldValidation:
  // a field the type does not declare fails the conversion, and the real server answers that error as it
  // is (a 500 naming the object and the field). A custom resource's is pruned by its schema instead.
  if (isBuiltIn(resource)) {
    const undeclared = undeclaredFields(resource.fields, sent)
    if (undeclared.length > 0) {
      const group = resource.group
      const at = `${identity.namespace ?? ""}/${identity.name}; ${group}/${options.version}, Kind=${resource.kind}`
      return unclassified(`failed to create typed patch object (${at}): ${undeclaredMessage(undeclared)}`)
    }
  }
  const decoded = decodeFields(resource, options.version, sent, options.fieldValidation)
  if ("refused" in decoded) return decoded.refused
  const config = decoded.object
  const tree = resource.fields
  const applied = objectFieldSet(scoped(resource, config, options.subresource), tree)
  const live = context.store.get(resource.plural, resource.namespaced ? namespace : undefined, name)
  if (live === undefined) {
    if (options.subresource !== undefined) return notFound(resource, name)
    const object = { ...configPart(resource, config, undefined), apiVersion: config.apiVersion ?? "", kind: config.kind ?? resource.kind }
    const created = create(context, resource, { ...object, metadata: { ...metadataOf(object), name } }, {
      namespace,
      version: options.version,
      dryRun: options.dryRun,
      fieldValidation: "Ignore",
      manager: options.manager,
      applied
    })
    return withWarnings(created, decoded.warnings)
  }
  const writer: Writer = { manager: options.manager, operation: "Apply", apiVersion: apiVersionFor(resource, options.version), subresource: options.subresource }
  const entries = entriesOf(live) ?? []
  const mine = entries.find((e) => e.manager === options.manager && e.operation === "Apply" && e.subresource === options.subresource)
  const previous = mine?.fieldsV1 ?? {}
  const merged = mergeApplied({ ...live, apiVersion: apiVersionFor(resource, options.version) }, configPart(resource, config, options.subresource), tree, "")
  // What this manager applied before and no longer sets goes, unless another manager (or this apply) holds it.
  const keep = entries.filter((e) => e !== mine).reduce((set, e) => union(set, e.fieldsV1), applied)
  const pruned = removePaths(isJsonObject(merged) ? merged : {}, pathsOf(difference(previous, applied)), tree, keep)
  const time = timestamp(context.now())
  const answer = commitUpdate(context, resource, live, pruned, {
    version: options.version,
    dryRun: options.dryRun,
    subresource: options.subresource,
    requireResourceVersion: false,
    fieldValidation: "Ignore",
    manager: options.manager,
    managed: (next) => {
      const result = appliedEntries({ resource, tree, entries, old: live, next, writer }, applied, time, options.force)
      if ("entries" in result) return result.entries
      return applyConflict(result.conflicts.flatMap((c) => pathsOf(c.fields).map((path) => ({ manager: ownerName(c.entry), path: printPath(path) }))))
    }
  })
  return withWarnings(answer, decoded.warnings)
}
