import { Option, Schema } from "effect"

// Only the fields dispatch reads are typed; every other field rides along in the rest record, so an
// object read and written back keeps what the server or other controllers put there.

const Rest = [Schema.Record(Schema.String, Schema.Unknown)] as const
const StringMap = Schema.Record(Schema.String, Schema.String)

/** metadata.ownerReferences[] entry. */
export const OwnerReference = Schema.StructWithRest(
  Schema.Struct({
    apiVersion: Schema.String,
    kind: Schema.String,
    name: Schema.String,
    uid: Schema.String,
    controller: Schema.optionalKey(Schema.Boolean)
  }),
  Rest
)
/** metadata.ownerReferences[] entry. */
export type OwnerReference = typeof OwnerReference.Type

/** The metadata dispatch reads. */
export const ObjectMeta = Schema.StructWithRest(
  Schema.Struct({
    name: Schema.String,
    namespace: Schema.optionalKey(Schema.String),
    uid: Schema.optionalKey(Schema.String),
    resourceVersion: Schema.optionalKey(Schema.String),
    labels: Schema.optionalKey(StringMap),
    annotations: Schema.optionalKey(StringMap),
    ownerReferences: Schema.optionalKey(Schema.Array(OwnerReference)),
    deletionTimestamp: Schema.optionalKey(Schema.String)
  }),
  Rest
)
/** The metadata dispatch reads. */
export type ObjectMeta = typeof ObjectMeta.Type

/** Any object the API server returns, with typed metadata. */
export const KubeResource = Schema.StructWithRest(
  Schema.Struct({ apiVersion: Schema.String, kind: Schema.String, metadata: ObjectMeta }),
  Rest
)
/** Any object the API server returns, with typed metadata. */
export type KubeResource = typeof KubeResource.Type

/** One entry of a Workload's status.admissionChecks. */
export const AdmissionCheckState = Schema.StructWithRest(
  Schema.Struct({ name: Schema.String, state: Schema.optionalKey(Schema.String) }),
  Rest
)

/** A Kueue Workload, typed where Start's wait reads it. */
export const Workload = Schema.StructWithRest(
  Schema.Struct({
    apiVersion: Schema.String,
    kind: Schema.String,
    metadata: ObjectMeta,
    status: Schema.optionalKey(
      Schema.StructWithRest(Schema.Struct({ admissionChecks: Schema.optionalKey(Schema.Array(AdmissionCheckState)) }), Rest)
    )
  }),
  Rest
)
/** A Kueue Workload, typed where Start's wait reads it. */
export type Workload = typeof Workload.Type

// Every answer is decoded as a KubeResource, and a Schema decode copies every field of it into a new object:
// about 7 µs per answer against 0.5 µs for these checks. They are the schema's, field by field, and the
// answer just parsed is kept as it is; KubeObjects.test holds both to the same verdict on any input.
type Fields = Readonly<Record<string, unknown>>

const isFields = (u: unknown): u is Fields => typeof u === "object" && u !== null && !Array.isArray(u)

const isString = (u: unknown): u is string => typeof u === "string"

// Schema.optionalKey: absent, or present with the type (present and undefined is refused).
const optional = (fields: Fields, key: string, is: (u: unknown) => boolean): boolean => !(key in fields) || is(fields[key])

const isStringMap = (u: unknown): boolean => {
  if (!isFields(u)) return false
  for (const key of Object.keys(u)) if (!isString(u[key])) return false
  return true
}

const isOwnerReference = (u: unknown): boolean =>
  isFields(u) && isString(u["apiVersion"]) && isString(u["kind"]) && isString(u["name"]) && isString(u["uid"]) && optional(u, "controller", (c) => typeof c === "boolean")

const isObjectMeta = (u: unknown): boolean =>
  isFields(u) &&
  isString(u["name"]) &&
  optional(u, "namespace", isString) &&
  optional(u, "uid", isString) &&
  optional(u, "resourceVersion", isString) &&
  optional(u, "labels", isStringMap) &&
  optional(u, "annotations", isStringMap) &&
  optional(u, "ownerReferences", (refs) => Array.isArray(refs) && refs.every(isOwnerReference)) &&
  optional(u, "deletionTimestamp", isString)

const isKubeResource = (u: unknown): u is KubeResource => isFields(u) && isString(u["apiVersion"]) && isString(u["kind"]) && isObjectMeta(u["metadata"])

/** Decodes an answer body into a KubeResource, or nothing when it is not one (what
 * `Schema.decodeUnknownOption(KubeResource)` answers, without copying the object). */
export const decodeKubeResource = (body: unknown): Option.Option<KubeResource> => (isKubeResource(body) ? Option.some(body) : Option.none())

/** Decodes an object into a Workload, or nothing when it is not one. */
export const decodeWorkload = Schema.decodeUnknownOption(Workload)
