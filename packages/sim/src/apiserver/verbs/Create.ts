// The create verb: decode checks (unknown fields pruned or refused), the target namespace, generateName, server-set metadata, defaults,
// validation, admission, then AlreadyExists or the stored object (or nothing stored, on dryRun).
import type { ApiResponse, FieldValidation, KubeObject, Resource } from "../../Api.ts"
import { admit } from "../admission/AdmissionChain.ts"
import { decodeFields, withWarnings } from "../validation/FieldValidation.ts"
import { freezeParts, isJsonObject, putOwn, withoutKey } from "../store/JsonValue.ts"
import { apiVersionFor as apiVersionOf, groupOf, versionOf } from "../ResourceNames.ts"
import type { Kind } from "../../kinds/Kind.ts"
import { isDeleting, metadataOf, present, type ServerContext, timestamp } from "../store/ServerContext.ts"
import { alreadyExists, badRequest, forbidden, invalid, notFound } from "../StatusErrors.ts"
import { requiredValue } from "../validation/FieldErrors.ts"
import { tooLargeToStore } from "../store/StoredSize.ts"
import { validate } from "../validation/Validation.ts"
import type { FieldSet } from "../managed/FieldSet.ts"
import { createdEntries, withEntries } from "../managed/ManagedFields.ts"

/** The alphabet and length Kubernetes uses for generated name suffixes. */
const suffixAlphabet = "bcdfghjklmnpqrstvwxz2456789"
const suffixLength = 5
const maxGeneratedBase = 63 - suffixLength

/** Where and how a create is asked for. */
export interface CreateOptions {
  readonly namespace: string | undefined
  readonly version: string
  readonly dryRun: boolean
  readonly fieldValidation?: FieldValidation | undefined
  /** Who the write is recorded as in managedFields. */
  readonly manager?: string | undefined
  /** A create by server-side apply: the fields its configuration sets, which its manager owns. */
  readonly applied?: FieldSet | undefined
  /** The body is the server's to keep (its maker holds on to none of it): what is stored of it is not copied first. */
  readonly handedOver?: boolean | undefined
}

// Fields the server owns: whatever the client sent is dropped.
const serverOwnedMetadata: ReadonlySet<string> = new Set(["resourceVersion", "uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation", "selfLink", "managedFields"])

/** Checks that a request body is an object of the resource's kind and a served apiVersion. */
export const checkTypeMeta = (resource: Resource, body: unknown): ApiResponse | undefined => {
  if (!isJsonObject(body)) return badRequest("the body of the request was in an unknown format - expected a JSON object")
  const kind = body["kind"]
  const apiVersion = body["apiVersion"]
  if (typeof kind !== "string" || kind === "") return badRequest(`Object 'Kind' is missing in '${JSON.stringify(body).slice(0, 200)}'`)
  if (typeof apiVersion !== "string" || apiVersion === "") return badRequest(`Object 'apiVersion' is missing in '${JSON.stringify(body).slice(0, 200)}'`)
  if (groupOf(apiVersion) !== resource.group || !resource.versions.includes(versionOf(apiVersion))) {
    return badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${resource.group === "" ? "" : `${resource.group}/`}${resource.versions[0] ?? ""})`)
  }
  if (kind !== resource.kind) return badRequest(`the kind in the data (${kind}) does not match the expected kind (${resource.kind})`)
  return undefined
}

/** The namespace's refusal of new content, if any: missing (404) or terminating (403). */
export const namespaceRefusal = (context: ServerContext, resource: Resource, namespace: string, name: string): ApiResponse | undefined => {
  const namespaces = context.kinds.byResource("namespaces")
  const ns = context.store.get("namespaces", undefined, namespace)
  if (namespaces === undefined) return undefined
  if (ns === undefined) return notFound(namespaces, namespace)
  if (isDeleting(ns)) {
    return forbidden(resource, name, `${resource.plural}${resource.group === "" ? "" : `.${resource.group}`} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`)
  }
  return undefined
}

const chooseName = (context: ServerContext, metadata: Record<string, unknown>): string | undefined => {
  if (typeof metadata["name"] === "string" && metadata["name"] !== "") return metadata["name"]
  const base = metadata["generateName"]
  if (typeof base !== "string" || base === "") return undefined
  return base.slice(0, maxGeneratedBase) + context.random.pick(suffixAlphabet, suffixLength)
}

// What the server sets itself on create: the kind's own, or, under a status subresource, no status yet.
const initialState = (context: ServerContext, resource: Kind, object: KubeObject): KubeObject => {
  const prepare = resource.strategy.prepareForCreate
  if (prepare !== undefined) return prepare(object, { int: (bound) => context.random.int(bound), stored: (plural) => context.store.all(plural) })
  return resource.hasStatus ? withoutKey(object, "status") : object
}

/** Creates an object. */
export const create = (context: ServerContext, resource: Kind, sentBody: unknown, options: CreateOptions): ApiResponse => {
  // The store must never share structure with what the caller keeps, unless it is frozen for good (a
  // controller's new object built from stored parts) or handed over: decoding the fields copies the rest.
  const typeProblem = checkTypeMeta(resource, sentBody)
  if (typeProblem !== undefined || !isJsonObject(sentBody)) return typeProblem ?? badRequest("invalid body")
  const decoded = decodeFields(resource, options.version, sentBody, options.fieldValidation, undefined, options.handedOver)
  if ("refused" in decoded) return decoded.refused
  return withWarnings(createDecoded(context, resource, decoded.object, options), decoded.warnings)
}

// The create once the body is decoded: unknown fields are gone.
const createDecoded = (context: ServerContext, resource: Kind, body: KubeObject, options: CreateOptions): ApiResponse => {
  const sent = metadataOf(body)
  // The real server passes its storage layer's error through as a 500; the fault is the client's, so 400.
  if (typeof sent["resourceVersion"] === "string" && sent["resourceVersion"] !== "") {
    return badRequest("resourceVersion should not be set on objects to be created")
  }
  const namespace = resource.namespaced ? options.namespace : undefined
  if (resource.namespaced && typeof sent["namespace"] === "string" && sent["namespace"] !== "" && sent["namespace"] !== namespace) {
    return badRequest("the namespace of the provided object does not match the namespace sent on the request")
  }
  const name = chooseName(context, sent)
  if (name === undefined) return invalid(resource, "", [requiredValue("metadata.name", "name or generateName is required")])
  if (namespace !== undefined) {
    const refusal = namespaceRefusal(context, resource, namespace, name)
    if (refusal !== undefined) return refusal
  }
  // The sent metadata but the server's own, then what the server sets, each in its place when sent (as
  // a spread would place it), else after: built in place, as every create runs this.
  const metadata: Record<string, unknown> = {}
  for (const key of Object.keys(sent)) if (!serverOwnedMetadata.has(key)) putOwn(metadata, key, sent[key])
  metadata["name"] = name
  if (namespace !== undefined) metadata["namespace"] = namespace
  metadata["uid"] = context.random.uuid()
  metadata["creationTimestamp"] = timestamp(context.now())
  metadata["generation"] = 1
  // Defaults are the requester's, as the real server's defaulting is; what the registry then sets itself
  // (a Namespace's finalizer and phase) belongs to no manager.
  const defaulted = resource.strategy.defaults({ ...body, apiVersion: apiVersionOf(resource, options.version), metadata })
  const candidate = initialState(context, resource, defaulted)
  if (namespace === undefined) delete (candidate["metadata"] as Record<string, unknown>)["namespace"]
  // Frozen now, as the store would freeze them (nothing edits them from here on): admission's second
  // validation skips the parts its webhooks kept, and a frozen part's field set can be told from the
  // last one of its kind's by shape, without building it (ObjectFields).
  freezeParts(defaulted)
  freezeParts(candidate)
  const errors = validate(context.kinds, resource, candidate, undefined)
  if (errors.length > 0) return invalid(resource, name, errors)
  const admitted = admit(context, resource, "create", candidate, undefined, name)
  if ("refused" in admitted) return admitted.refused
  const writer = { manager: options.manager, operation: options.applied === undefined ? ("Update" as const) : ("Apply" as const), apiVersion: apiVersionOf(resource, options.version), subresource: undefined }
  const object = withEntries(admitted.object, createdEntries(resource, resource.fields, defaulted, writer, timestamp(context.now()), options.applied))
  if (options.dryRun) {
    return context.store.get(resource.plural, namespace, name) !== undefined ? alreadyExists(resource, name) : { code: 201, body: present(resource, object, options.version) }
  }
  // etcd refuses an oversized request before its transaction can find the key taken.
  const tooLarge = tooLargeToStore(object)
  if (tooLarge !== undefined) return tooLarge
  if (context.store.get(resource.plural, namespace, name) !== undefined) return alreadyExists(resource, name)
  return { code: 201, body: present(resource, context.store.write(resource.plural, object), options.version) }
}
