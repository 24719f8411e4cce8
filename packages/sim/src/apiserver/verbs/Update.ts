// The update verb and what patch and the controllers share with it: optimistic concurrency on
// resourceVersion, the main endpoint ignoring status and /status ignoring the rest, server-owned
// metadata kept, generation rising on changes outside metadata and status, finalizer rules while
// deleting, validation and admission, and removal once the last finalizer of a deleting object goes.
import type { ApiResponse, FieldValidation, KubeObject } from "../../Api.ts"
import { admit } from "../admission/AdmissionChain.ts"
import { decodeFields, withWarnings } from "../validation/FieldValidation.ts"
import { type FieldError, forbidden as forbiddenField } from "../validation/FieldErrors.ts"
import { isJsonObject, jsonEqual, putOwn, withoutKey } from "../store/JsonValue.ts"
import { finalizersOf, identityOf, isDeleting, metadataOf, present, type ServerContext, timestamp } from "../store/ServerContext.ts"
import { badRequest, conflict, invalid, notFound, staleObject } from "../StatusErrors.ts"
import { checkTypeMeta } from "./Create.ts"
import { tooLargeToStore } from "../store/StoredSize.ts"
import { validate } from "../validation/Validation.ts"
import { entriesOf, type ManagedEntry, updatedEntries, withEntries } from "../managed/ManagedFields.ts"
import type { Kind } from "../../kinds/Kind.ts"
import { apiVersionFor } from "../ResourceNames.ts"

/** How an update is asked for. */
export interface UpdateOptions {
  readonly version: string
  readonly dryRun: boolean
  readonly subresource?: "status" | undefined
  /** PUT demands metadata.resourceVersion; a patch checks it only when the patched object carries one. */
  readonly requireResourceVersion: boolean
  readonly fieldValidation?: FieldValidation | undefined
  /** Who the write is recorded as in managedFields. */
  readonly manager?: string | undefined
  /** A server-side apply's own managedFields for the new version (an Update's are worked out here). */
  readonly managed?: ((next: KubeObject) => ReadonlyArray<ManagedEntry> | ApiResponse) | undefined
  /** The object sent is the server's to keep (its maker holds on to none of it): what is stored of it is not copied first. */
  readonly handedOver?: boolean | undefined
}

// Metadata the server keeps from the stored object whatever the client sends (managedFields are worked
// out after, from the stored ones or the ones the client sent).
const serverKept = ["name", "namespace", "uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation", "resourceVersion", "managedFields"]

const isSpecKey = (key: string): boolean => key !== "metadata" && key !== "status" && key !== "apiVersion" && key !== "kind"

// Whether two versions hold the same fields outside metadata and status (jsonEqual on those parts, with no copy of them made).
const sameSpec = (a: KubeObject, b: KubeObject): boolean => {
  let unmatched = 0
  for (const key of Object.keys(a)) {
    if (!isSpecKey(key) || a[key] === undefined) continue
    if (!Object.hasOwn(b, key) || !jsonEqual(a[key], b[key])) return false
    unmatched++
  }
  for (const key of Object.keys(b)) if (isSpecKey(key) && b[key] !== undefined) unmatched--
  return unmatched === 0
}

const missingResourceVersion: FieldError = {
  reason: "FieldValueInvalid",
  message: "Invalid value: 0x0: must be specified for an update",
  field: "metadata.resourceVersion"
}

// The object the update would store: status from the right place, server-owned metadata kept.
const merged = (resource: Kind, old: KubeObject, candidate: KubeObject, subresource: "status" | undefined): KubeObject => {
  if (subresource === "status") {
    const rest = withoutKey(old, "status")
    return candidate["status"] === undefined ? rest : { ...rest, status: candidate["status"] }
  }
  const oldMeta = metadataOf(old)
  const sentMeta = metadataOf(candidate)
  const metadata: Record<string, unknown> = {}
  for (const k of Object.keys(sentMeta)) if (!serverKept.includes(k)) putOwn(metadata, k, sentMeta[k])
  for (const k of serverKept) if (oldMeta[k] !== undefined) metadata[k] = oldMeta[k]
  // Without a status subresource, status is an ordinary field and the main endpoint writes it.
  if (!resource.hasStatus) return { ...candidate, apiVersion: old.apiVersion ?? "", kind: old.kind ?? resource.kind, metadata }
  const next: KubeObject = { ...withoutKey(candidate, "status"), apiVersion: old.apiVersion ?? "", kind: old.kind ?? resource.kind, metadata }
  return old["status"] !== undefined ? { ...next, status: old["status"] } : next
}

const newFinalizersWhileDeleting = (old: KubeObject, next: KubeObject): ReadonlyArray<FieldError> => {
  if (!isDeleting(old)) return []
  const before = new Set(finalizersOf(old))
  const added = finalizersOf(next).filter((f) => !before.has(f))
  return added.length === 0
    ? []
    : [forbiddenField("metadata.finalizers", `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(", ")}}`)]
}

/** Applies a full new version of a stored object (PUT, or the result of a patch), its unknown fields pruned or refused first. */
export const commitUpdate = (
  context: ServerContext,
  resource: Kind,
  old: KubeObject,
  sentCandidate: KubeObject,
  options: UpdateOptions
): ApiResponse => {
  const decoded = decodeFields(resource, options.version, sentCandidate, options.fieldValidation, old, options.handedOver)
  if ("refused" in decoded) return decoded.refused
  return withWarnings(commitDecoded(context, resource, old, decoded.object, options), decoded.warnings)
}

const commitDecoded = (context: ServerContext, resource: Kind, old: KubeObject, candidate: KubeObject, options: UpdateOptions): ApiResponse => {
  const { name, namespace } = identityOf(old)
  const sent = metadataOf(candidate)
  const sentVersion = sent["resourceVersion"]
  if (options.requireResourceVersion && (typeof sentVersion !== "string" || sentVersion === "")) {
    return invalid(resource, name, [missingResourceVersion])
  }
  if (typeof sentVersion === "string" && sentVersion !== "" && sentVersion !== metadataOf(old)["resourceVersion"]) {
    return conflict(resource, name, staleObject)
  }
  const sentUid = sent["uid"]
  const oldUid = metadataOf(old)["uid"]
  if (typeof sentUid === "string" && sentUid !== "" && sentUid !== oldUid) {
    return conflict(resource, name, `Precondition failed: UID in precondition: ${sentUid}, UID in object meta: ${String(oldUid)}`)
  }
  const shaped = merged(resource, old, candidate, options.subresource)
  let next = options.subresource === "status" ? shaped : resource.strategy.defaults(shaped)
  const errors = [...newFinalizersWhileDeleting(old, next), ...validate(context.kinds, resource, next, old)]
  if (errors.length > 0) return invalid(resource, name, errors)
  // Attributed before admission, as the real server does: a webhook's changes are no manager's.
  const managed = managedAfter(context, resource, old, candidate, next, options)
  if (!Array.isArray(managed)) return managed as ApiResponse
  if (options.subresource === undefined) {
    const admitted = admit(context, resource, "update", next, old, name)
    if ("refused" in admitted) return admitted.refused
    next = admitted.object
  }
  next = withEntries(next, managed)
  if (jsonEqual(next, old)) return { code: 200, body: present(resource, old, options.version) }
  if (!sameSpec(next, old)) {
    const generation = metadataOf(old)["generation"]
    next = { ...next, metadata: { ...metadataOf(next), generation: (typeof generation === "number" ? generation : 0) + 1 } }
  }
  if (isDeleting(next) && finalizersOf(next).length === 0) {
    if (options.dryRun) return { code: 200, body: present(resource, next, options.version) }
    const removed = context.store.remove(resource.plural, namespace, name, next)
    return { code: 200, body: present(resource, removed ?? next, options.version) }
  }
  if (options.dryRun) return { code: 200, body: present(resource, next, options.version) }
  return tooLargeToStore(next) ?? { code: 200, body: present(resource, context.store.write(resource.plural, next), options.version) }
}

// The managedFields of the new version. The client may set them on the main endpoint (kubectl does, to
// move client-side apply's ownership to server-side apply's): a non-empty, well-formed list it sent that
// differs from the stored one replaces it before this write is attributed, as the real server does.
const managedAfter = (
  context: ServerContext,
  resource: Kind,
  old: KubeObject,
  candidate: KubeObject,
  next: KubeObject,
  options: UpdateOptions
): ReadonlyArray<ManagedEntry> | ApiResponse => {
  if (options.managed !== undefined) return options.managed(next)
  const stored = entriesOf(old) ?? []
  const sent = options.subresource === undefined ? entriesOf(candidate) : undefined
  const base = sent === undefined || jsonEqual(sent, stored) ? stored : sent
  const writer = { manager: options.manager, operation: "Update" as const, apiVersion: apiVersionFor(resource, options.version), subresource: options.subresource }
  return updatedEntries({ resource, tree: resource.fields, entries: base, old, next, writer }, () => timestamp(context.now()))
}

/** The PUT verb: the whole object (or its status), with metadata.resourceVersion required. */
export const update = (
  context: ServerContext,
  resource: Kind,
  namespace: string | undefined,
  name: string,
  body: unknown,
  options: Omit<UpdateOptions, "requireResourceVersion">
): ApiResponse => {
  const typeProblem = checkTypeMeta(resource, body)
  if (typeProblem !== undefined || !isJsonObject(body)) return typeProblem ?? badRequest("invalid body")
  const sent = identityOf(body)
  if (sent.name !== name) return badRequest(`the name of the object (${sent.name}) does not match the name on the URL (${name})`)
  if (resource.namespaced && sent.namespace !== undefined && sent.namespace !== namespace) {
    return badRequest("the namespace of the provided object does not match the namespace sent on the request")
  }
  const old = context.store.get(resource.plural, resource.namespaced ? namespace : undefined, name)
  if (old === undefined) return notFound(resource, name)
  // The store must never share structure with what the caller keeps, unless no one can change it:
  // decoding the fields (commitUpdate) copies the rest.
  return commitUpdate(context, resource, old, body, { ...options, requireResourceVersion: true })
}
